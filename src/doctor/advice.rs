//! Whether the `/model` argument each rule's advice shows runs what the
//! rule's label says. Measured on the client (docs/maintainers/claude-code-facts.md):
//! a full model id is taken as typed; an alias (`opus`, `sonnet`, `haiku`)
//! resolves to the client's model of that family, or to what
//! `ANTHROPIC_DEFAULT_<FAMILY>_MODEL` names; anything with spaces or
//! capitals (a label such as `Opus 5.5`) is taken as an unknown model id.
//! The env values are never shown: only which key, in which file.

use std::path::Path;

use crate::doctor::finding::{Code, Finding};
use crate::hooks::config::Config;
use crate::registry::scopes::ScopeFile;

/// The most of a label or command shown (they come from gk.json).
const SHOWN: usize = 80;

pub fn check(config: &Config, files: &[ScopeFile], config_path: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    let rules = config
        .models
        .iter()
        .map(|r| (&r.label, r.command.as_deref().unwrap_or(&r.model)))
        .chain([(
            &config.default_model.label,
            config
                .default_model
                .command
                .as_deref()
                .unwrap_or(&config.default_model.model),
        )]);
    for (label, command) in rules {
        let label = crate::text::one_line(label, SHOWN);
        let shown = crate::text::one_line(command, SHOWN);
        if command.is_empty()
            || command
                .chars()
                .any(|c| c.is_whitespace() || c.is_ascii_uppercase())
        {
            out.push(
                Finding::new(
                    Code::AdviceCommandUnresolved,
                    format!(
                        "the advice for '{label}' shows `/model {shown}`, which Claude Code takes as an unknown model id (spaces and capitals are not resolved)"
                    ),
                )
                .at(config_path, None)
                .fix(format!(
                    "in {}, give that rule a \"command\" (or \"model\") the client knows: a model id such as claude-opus-5-5, or an alias",
                    config_path.display()
                )),
            );
            continue;
        }
        let Some(key) = alias_key(command) else {
            continue;
        };
        if let Some(file) = files.iter().find(|f| sets_env(f, key)) {
            out.push(
                Finding::new(
                    Code::AdviceAliasRemapped,
                    format!(
                        "the advice for '{label}' shows `/model {shown}`, but {key} in the env of {} points that alias at a model of its own (value not shown): '{label}' may not be what runs",
                        file.label()
                    ),
                )
                .at(config_path, None)
                .fix(format!(
                    "give that rule in {} the model id as its \"command\", or a label that names what {key} points at",
                    config_path.display()
                )),
            );
        }
    }
    out
}

/// The variable that remaps an alias the client resolves.
fn alias_key(command: &str) -> Option<&'static str> {
    match command {
        "opus" => Some("ANTHROPIC_DEFAULT_OPUS_MODEL"),
        "sonnet" => Some("ANTHROPIC_DEFAULT_SONNET_MODEL"),
        "haiku" => Some("ANTHROPIC_DEFAULT_HAIKU_MODEL"),
        _ => None,
    }
}

fn sets_env(file: &ScopeFile, key: &str) -> bool {
    file.effective()
        && file
            .settings()
            .and_then(|s| s.value.get("env")?.get(key))
            .is_some_and(|v| v.as_str().is_some_and(|s| !s.is_empty()))
}
