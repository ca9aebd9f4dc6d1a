package dev.keypool.camel.routes;

import java.util.Set;

import org.apache.camel.CamelContext;
import org.apache.camel.model.Model;
import org.apache.camel.model.ModelLifecycleStrategy;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.RouteTemplateDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a reloaded route template whose routes are made at startup: from Java (one per channel, one per passthrough
 * path) or by templatedRoute in YAML (the entries, keypool-entry). Camel's route reload re-reads an edited file but
 * re-creates only its routes, not its templatedRoutes (RouteBuilder.updateRoutesToCamelContext): the routes would go
 * on running the old template without a word. So the reload is said, and the edit applies at the next start.
 */
final class TemplateReloads {

    private static final Logger LOG = LoggerFactory.getLogger(TemplateReloads.class);

    private TemplateReloads() {
    }

    static void report(CamelContext context, Set<String> templateIds) {
        context.getCamelContextExtension().getContextPlugin(Model.class).addModelLifecycleStrategy(new ModelLifecycleStrategy() {
            @Override
            public void onAddRouteDefinition(RouteDefinition route) {
                // routes reload themselves
            }

            @Override
            public void onRemoveRouteDefinition(RouteDefinition route) {
                // nothing to report
            }

            @Override
            public void onAddRouteTemplateDefinition(RouteTemplateDefinition template) {
                if (templateIds.contains(template.getId()) && context.isStarted()) {
                    LOG.warn("Route template {} was reloaded, but the routes made from it keep running the old one: "
                            + "restart KeyPool to apply the change", template.getId());
                }
            }

            @Override
            public void onRemoveRouteTemplateDefinition(RouteTemplateDefinition template) {
                // nothing to report
            }
        });
    }
}
