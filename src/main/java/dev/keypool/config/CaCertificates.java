package dev.keypool.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A channel's {@code caFile}: the certificates of a PEM file (an internal CA of a self-hosted provider), trusted
 * besides the JVM's own trust store, never instead of it.
 */
public final class CaCertificates {

    private CaCertificates() {
    }

    /** The X.509 certificates of a PEM (or DER) file; at least one, else a CertificateException saying so. */
    public static List<X509Certificate> read(Path file) throws IOException, CertificateException {
        Collection<? extends Certificate> read;
        try (InputStream in = Files.newInputStream(file)) {
            read = CertificateFactory.getInstance("X.509").generateCertificates(in);
        }
        List<X509Certificate> certificates = new ArrayList<>();
        for (Certificate certificate : read) {
            certificates.add((X509Certificate) certificate);
        }
        if (certificates.isEmpty()) {
            throw new CertificateException("no certificate in it");
        }
        return certificates;
    }

    /**
     * A trust manager factory over the JVM's default trusted certificates plus those of {@code file}: one trust store,
     * so the JDK's own path validation decides, as it does for the default store.
     */
    public static TrustManagerFactory withDefaults(Path file) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int alias = 0;
        for (X509Certificate jvm : defaultTrust().getAcceptedIssuers()) {
            store.setCertificateEntry("jvm-" + alias++, jvm);
        }
        for (X509Certificate added : read(file)) {
            store.setCertificateEntry("ca-file-" + alias++, added);
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
    }

    private static X509TrustManager defaultTrust() throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init((KeyStore) null);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("the JVM has no X.509 trust manager");
    }
}
