"""The 50-plugin setup of the session-check benchmarks (bench-hooks.sh,
bench-session.sh): a directory marketplace of 50 plugins, each with a
manifest and a hooks file of three handlers (none of them gk's), known to
the client under PLUGINS_DIR and all enabled in SETTINGS (written from
BASE, a settings file to extend, when given).

    python3 scripts/bench-plugins.py MKT PLUGINS_DIR SETTINGS [BASE]
"""
import json
import os
import sys


def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=2)


mkt, plugins_dir, settings = sys.argv[1:4]
names = [f"p{i:02}" for i in range(50)]
write(os.path.join(mkt, ".claude-plugin/marketplace.json"),
      {"name": "mkt", "plugins": [{"name": n, "source": f"./plugins/{n}"} for n in names]})
handler = lambda c: {"type": "command", "command": c}
for n in names:
    root = os.path.join(mkt, "plugins", n)
    write(os.path.join(root, ".claude-plugin/plugin.json"), {"name": n, "version": "1.0.0"})
    write(os.path.join(root, "hooks/hooks.json"), {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [handler("${CLAUDE_PLUGIN_ROOT}/bin/guard")]}],
        "PostToolUse": [{"hooks": [handler("${CLAUDE_PLUGIN_ROOT}/bin/log")]}],
        "Stop": [{"hooks": [handler("${CLAUDE_PLUGIN_ROOT}/bin/notify")]}]}})
write(os.path.join(plugins_dir, "known_marketplaces.json"),
      {"mkt": {"source": {"source": "directory", "path": mkt}, "installLocation": mkt}})
project = {}
if len(sys.argv) > 4:
    with open(sys.argv[4]) as f:
        project = json.load(f)
project["enabledPlugins"] = {f"{n}@mkt": True for n in names}
write(settings, project)
