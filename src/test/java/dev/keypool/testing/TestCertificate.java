package dev.keypool.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed server certificate for {@code localhost} and {@code 127.0.0.1}, made in the test's JVM (BouncyCastle's
 * certificate builder over the JDK's own EC keys and signatures), in a PKCS12 key store file as an operator would
 * give the gateway; and what a client needs to trust it and nothing else.
 */
public final class TestCertificate {

    private final Path keyStore;
    private final String password;
    private final X509Certificate certificate;

    private TestCertificate(Path keyStore, String password, X509Certificate certificate) {
        this.keyStore = keyStore;
        this.password = password;
        this.certificate = certificate;
    }

    /** A new key and certificate, valid from a day ago for two days, in a key store file deleted when the JVM exits. */
    public static TestCertificate create() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair pair = generator.generateKeyPair();
            X500Name name = new X500Name("CN=localhost");
            Instant now = Instant.now();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now.toEpochMilli()),
                    Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(1))), name, pair.getPublic());
            // clients check the name they connect to against these (OkHttp reads no common name)
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            X509Certificate certificate = new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));

            String password = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("keypool", pair.getPrivate(), password.toCharArray(), new Certificate[] {certificate});
            Path file = Files.createTempFile("keypool-tls-", ".p12");
            file.toFile().deleteOnExit();
            try (OutputStream out = Files.newOutputStream(file)) {
                store.store(out, password.toCharArray());
            }
            return new TestCertificate(file, password, certificate);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make a test certificate", e);
        }
    }

    /** The PKCS12 file holding the key and its certificate. */
    public Path keyStore() {
        return keyStore;
    }

    /** The password of the key store and of its key. */
    public String password() {
        return password;
    }

    /** Trusts this certificate alone. */
    public X509TrustManager trustManager() {
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("keypool", certificate);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trusted);
            return (X509TrustManager) factory.getTrustManagers()[0];
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client's TLS context that trusts this certificate alone. */
    public SSLContext clientContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new X509TrustManager[] {trustManager()}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
