# A tenant removed from keypool.yaml must lose access at the reload, not at the next restart: team-b is taken out of
# the running configuration, POST /admin/reload, then team-b's token must get 401 while team-a's still gets 200; the
# file is put back and reloaded, and team-b is served again.
reload_details=$(mktemp)
cp "$ABUSE_CONFIG" "$ABUSE_CONFIG.before-100"
python3 - "$ABUSE_CONFIG" <<'PY'
import re, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
out, skipping = [], False
for line in lines:
    if re.match(r"^\s*- name: team-b\s*$", line):
        skipping, indent = True, len(line) - len(line.lstrip())
        continue
    if skipping:
        stripped = line.lstrip()
        if stripped and (len(line) - len(stripped) <= indent):
            skipping = False
        else:
            continue
    out.append(line)
open(path, "w").write("\n".join(out))
PY
reload_status() {
  curl -s -o "$reload_details.body" -w '%{http_code}' -m 10 -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
    "$GW/admin/reload" 2>/dev/null || true
}
removed=$(reload_status)
cat "$reload_details.body" >> "$reload_details" 2>/dev/null || true
b_after=$(chat_status "$TOKEN_B")
a_after=$(chat_status "$TOKEN_A")
cp "$ABUSE_CONFIG.before-100" "$ABUSE_CONFIG"
restored=$(reload_status)
b_restored=$(chat_status "$TOKEN_B")
echo "removed: reload $removed, team-b $b_after, team-a $a_after; restored: reload $restored, team-b $b_restored" >> "$reload_details"
report "reload removes a tenant" "team-b removed from keypool.yaml, POST /admin/reload" \
  "reload $removed; team-b $b_after (want 401), team-a $a_after (want 200); restored: reload $restored, team-b $b_restored"
rm -f "$ABUSE_CONFIG.before-100" "$reload_details.body"
