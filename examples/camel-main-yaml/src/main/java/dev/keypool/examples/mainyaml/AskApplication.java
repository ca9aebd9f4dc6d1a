package dev.keypool.examples.mainyaml;

import org.apache.camel.main.Main;

/** A Camel Main application whose YAML route (routes/ask.camel.yaml) asks a model through KeyPool every few seconds. */
public final class AskApplication {

    private AskApplication() {
    }

    public static void main(String[] args) throws Exception {
        new Main(AskApplication.class).run(args);
    }
}
