package dev.keypool.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The optional {@code tenants} list; with none the gateway is open. */
final class TenantBinder {

    private static final Set<String> FIELDS = Set.of("name", "token", "rpm", "channels");

    List<TenantConfig> bind(ConfigNode tenantsNode, Set<String> channelNames) {
        List<TenantConfig> tenants = new ArrayList<>();
        UniqueNames names = new UniqueNames("tenant");
        Map<String, Integer> firstIndex = new HashMap<>();
        List<ConfigNode> items = tenantsNode.list();
        for (int index = 0; index < items.size(); index++) {
            ConfigNode item = items.get(index);
            if (!item.checkMapping(FIELDS)) {
                continue;
            }
            Optional<String> name = names.read(item.field("name"));
            ConfigNode tokenNode = item.field("token");
            Optional<String> token = tokenNode.requiredSecret();
            Integer first = token.isPresent() ? firstIndex.putIfAbsent(token.get(), index) : null;
            if (first != null) {
                // the token is how a request finds its tenant, so two tenants cannot share one
                tokenNode.problem("same token as tenants[" + first + "]");
            }
            List<ChannelReferences.Ref> channels = ChannelReferences.read(item.field("channels"));
            ChannelReferences.check(channels, channelNames, null);
            tenants.add(new TenantConfig(name.orElse(null), token.orElse(null),
                    item.field("rpm").integer(1).orElse(null), ChannelReferences.names(channels)));
        }
        return tenants;
    }
}
