//! Whether an answer came from the model gk advised. The advice shows a
//! `/model` argument: a model id (per-session scope), the rule's
//! `command` (an alias such as `opus`, or an id), or in global scope the
//! rule's label (`Sonnet 5`); the answer names the model id the API
//! answered with. Measured on the client (docs/maintainers/claude-code-facts.md):
//! a full id is taken as typed, an alias resolves to the client's model
//! of that family. So an argument follows when it is the answer's id, a
//! dated form of it (`claude-haiku-4-5` and `claude-haiku-4-5-20251001`),
//! an alias of the answer's family, or a label or command of a configured
//! rule whose model is the answer's.

use crate::hooks::config::Config;

/// The aliases the client resolves to a family's current model.
const ALIASES: [&str; 3] = ["opus", "sonnet", "haiku"];

/// `answer` is `want`, or `want` with a date (`-YYYYMMDD`) after it.
fn same_model(want: &str, answer: &str) -> bool {
    if want.eq_ignore_ascii_case(answer) {
        return true;
    }
    answer.len() > want.len()
        && answer.is_char_boundary(want.len())
        && answer[..want.len()].eq_ignore_ascii_case(want)
        && answer[want.len()..]
            .strip_prefix('-')
            .is_some_and(|d| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `answer` belongs to the family an alias names (`claude-opus-5-5` to `opus`).
fn of_family(alias: &str, answer: &str) -> bool {
    let lower = answer.to_ascii_lowercase();
    lower.split(['-', '.', '[', ']']).any(|part| part == alias)
}

/// Whether an answer from `answer` follows the advice `/model <advised>`.
pub fn follows(advised: &str, answer: &str, config: &Config) -> bool {
    if same_model(advised, answer) {
        return true;
    }
    let alias = advised.to_ascii_lowercase();
    if ALIASES.contains(&alias.as_str()) && of_family(&alias, answer) {
        return true;
    }
    let rules = config
        .models
        .iter()
        .map(|r| (&r.label, &r.model, r.command.as_deref()))
        .chain([(
            &config.default_model.label,
            &config.default_model.model,
            config.default_model.command.as_deref(),
        )]);
    for (label, model, command) in rules {
        let names_rule = label == advised || command == Some(advised) || model == advised;
        if names_rule && same_model(model, answer) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_dates_aliases_and_labels_match_the_model_they_name() {
        let c = Config::default();
        assert!(follows("claude-opus-5-5", "claude-opus-5-5", &c));
        assert!(follows("claude-haiku-4-5", "claude-haiku-4-5-20251001", &c));
        assert!(follows("opus", "claude-opus-5-5", &c));
        assert!(follows("Sonnet 5", "claude-sonnet-5", &c));
        assert!(follows("Haiku 4.5", "claude-haiku-4-5-20251001", &c));
        // Another model of the family is not the advised one.
        assert!(!follows("claude-sonnet-5", "claude-sonnet-5-5", &c));
        assert!(!follows("Sonnet 5", "claude-sonnet-5-5", &c));
        assert!(!follows("opus", "claude-sonnet-5", &c));
        assert!(!follows("claude-opus-5", "claude-opus-5-5", &c));
        assert!(!follows("sonnet", "claude-sonnets-1", &c));
    }
}
