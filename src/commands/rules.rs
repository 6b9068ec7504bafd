//! `gk rules` and `gk explain`: the hooks' configuration as the user sees
//! it, printed, and one prompt walked through the rules. Not the hot path:
//! both only read, through the same functions the hooks use.

use crate::console::{errln, Console};
use crate::env::Env;
use crate::hooks::config::{self, Config};
use crate::hooks::prompt::Analysis;
use crate::paths::ClaudePaths;

/// The config `gk rules` and `gk explain` work with: the hooks' view, with
/// the reason on stderr when the file was ignored.
fn effective_config(env: &Env, c: &mut Console<'_>) -> Config {
    let Some(paths) = ClaudePaths::from_env(env) else {
        return Config::default();
    };
    let loaded = config::load_for_hooks(&paths.config_file());
    if let Some(e) = loaded.error {
        // The reason may quote gk.json (a field name): shown, not acted on.
        let why = e.to_string();
        errln!(
            c,
            "gk: config ignored, the hooks use the built-in defaults: {}",
            crate::text::one_line(&why, 400)
        );
    }
    loaded.config
}

/// `gk rules`: the effective config as pretty JSON, itself a valid gk.json.
/// ASCII only (other characters as `\uXXXX`), like the hooks' output, so a
/// Windows console code page cannot garble it on its way into a file.
pub fn print_rules(
    preset: Option<crate::cli::Preset>,
    env: &Env,
    c: &mut Console<'_>,
) -> crate::error::Result<u8> {
    // A gk.json that cannot be used is refused, not replaced by the
    // defaults on stdout: `gk rules > gk.json` would then overwrite the
    // user's file with them.
    let mut config = match ClaudePaths::from_env(env) {
        Some(paths) => {
            let loaded = config::load_for_hooks(&paths.config_file());
            if let Some(e) = loaded.error {
                return Err(crate::error::Error::new(format!(
                    "{}; fix it (the hooks use the built-in defaults until then): nothing printed",
                    crate::text::escaped(&crate::text::one_line(&e.to_string(), 400))
                )));
            }
            loaded.config
        }
        None => Config::default(),
    };
    if let Some(preset) = preset {
        super::presets::apply(&mut config, preset);
    }
    let text = rules_text(config)?;
    if let Some(paths) = ClaudePaths::from_env(env) {
        let file = paths.config_file();
        match stdout_is(c, &file) {
            // `gk rules >> gk.json`: the shell kept what it held, and a
            // second object after it would void the whole file for the
            // hooks (a hook switched off with it).
            Some(size) if size > 0 => {
                return Err(crate::error::Error::new(format!(
                    "stdout is {} itself, which still holds its text (`>>` adds to it): a second config after it would leave a file the hooks cannot read; nothing printed (write to another file and move it over gk.json)",
                    crate::text::escaped(&crate::text::one_line(&file.display().to_string(), 400))
                )));
            }
            Some(_) => errln!(
                c,
                "gk: note: writing into gk.json itself: the shell empties it before gk reads it, \
                 so this is the built-in config, without rules of yours or a hook switched off \
                 with `gk disable`; to keep those, write to another file and move it over gk.json"
            ),
            None => {}
        }
    }
    print_out(c, &text)?;
    Ok(0)
}

/// `config` as `gk rules` prints it: pretty JSON, ASCII only, itself a
/// valid gk.json, ending in a newline.
pub fn rules_text(mut config: Config) -> crate::error::Result<String> {
    // Per session, what is in force, said outright: the advice, only the
    // user's own rules (they win over the recommender) and the effort
    // keywords used. Saved as gk.json, it changes nothing.
    if config.state.scope == crate::hooks::config::StateScope::Session {
        config.advice = Some(config.advice());
        config.models = config.rules().to_vec().into();
        config.effort = config.effort_keywords().clone().into();
    }
    let text = serde_json::to_string_pretty(&config)
        .map_err(|e| crate::error::Error::new(format!("could not print the rules: {e}")))?;
    // ascii_only leaves DEL, which json_escaped writes as \u007f.
    let text = crate::text::json_escaped(&text);
    Ok(format!("{}\n", crate::hooks::jsonout::ascii_only(&text)))
}

/// Whether stdout is the file at `path` (`gk rules > gk.json`). Unix only
/// (the console knows stdout's file there): on Windows the shells that
/// truncate (cmd, PowerShell) are not told apart here, and
/// docs/configuration.md gives the safe recipe.
#[cfg(unix)]
fn stdout_is(c: &Console<'_>, path: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let (Some(out), Ok(file)) = ((c.out_file)(), std::fs::metadata(path)) else {
        return None;
    };
    (out == (file.dev(), file.ino())).then_some(file.len())
}

#[cfg(not(unix))]
fn stdout_is(_c: &Console<'_>, _path: &std::path::Path) -> Option<u64> {
    None
}

/// Print to stdout; a closed pipe (`gk rules | head`) is not an error, but
/// any other failed write (`gk rules > gk.json` on a full disk) is.
fn print_out(c: &mut Console<'_>, text: &str) -> crate::error::Result<()> {
    let stdout = &mut *c.out;
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(crate::error::Error::new(
            format!("could not write to stdout: {e}"),
        )),
        _ => Ok(()),
    }
}

/// `gk explain "<prompt>"`: which rule and keyword fire, in plain text.
pub fn explain(prompt_text: &str, env: &Env, c: &mut Console<'_>) -> crate::error::Result<u8> {
    let config = effective_config(env, c);
    print_out(c, &explanation(prompt_text, &config))?;
    Ok(0)
}

fn explanation(prompt_text: &str, config: &Config) -> String {
    let a = crate::hooks::prompt::analyse(prompt_text, config);
    let c = &a.choice;
    let rules = config.rules();
    let mut out = String::new();
    if !config.enabled(crate::hookcmd::HookKind::Prompt) {
        out.push_str(
            "hook:       switched off in gk.json (`gk enable prompt` switches it on): the prompt hook says none of this\n",
        );
    }
    out.push_str(&format!(
        "check mode: {}\n",
        if a.check_mode {
            "yes ([check] prefix stripped; the task will not be run)"
        } else {
            "no"
        }
    ));
    out.push_str(&format!("words:      {}\n", a.word_count));
    for &i in &a.skipped_for_length {
        let rule = &rules[i];
        let limit = rule.word_limit(config.haiku_max_words).unwrap_or(0);
        out.push_str(&format!(
            "skipped:    {} (only for prompts of at most {limit} words)\n",
            rule.label
        ));
    }
    if a.recommender {
        recommender_lines(&mut out, prompt_text, config, &a);
    }
    match (c.rule, &c.learned) {
        (Some(i), _) => out.push_str(&format!(
            "model:      {} ({}) -- rule {} of {}, keyword '{}'{}\n",
            c.label,
            c.model,
            i + 1,
            rules.len(),
            c.trigger,
            if a.recommender {
                " (your rule: it wins over the recommender)"
            } else {
                ""
            }
        )),
        (None, Some(reason)) => out.push_str(&format!(
            "model:      {} ({}) -- the recommender; strongest sign: {reason}\n",
            c.label, c.model
        )),
        (None, None) if a.recommender => out.push_str(&format!(
            "model:      {} ({}) -- default: no strong sign for another model, the advice says nothing\n",
            c.label, c.model
        )),
        (None, None) => out.push_str(&format!(
            "model:      {} ({}) -- default, no rule keyword found\n",
            c.label, c.model
        )),
    }
    out.push_str(&format!("use for:    {}\n", c.purpose));
    match a.effort {
        Some((level, kw)) => out.push_str(&format!("effort:     {level} (keyword '{kw}')\n")),
        None => out.push_str("effort:     none (no effort keyword; keep the current setting)\n"),
    }
    if let Some(w) = c.warning {
        out.push_str(&format!("warning:    {w}\n"));
    }
    out
}

/// How many contributions `gk explain` lists for and against a tier.
const TOP_FOR: usize = 5;
const TOP_AGAINST: usize = 3;

/// The recommender's part of `gk explain`: the user's rules, each tier's
/// score, the Fable guard, and what pushed toward (and against) the tier
/// that leads the cheaper default.
fn recommender_lines(out: &mut String, prompt_text: &str, config: &Config, a: &Analysis<'_>) {
    use crate::hooks::advice::{self, Tier};
    out.push_str(
        "advice:     learned (your rules first, then the recommender; \"advice\": \"keywords\" for rules alone)\n",
    );
    let rules = config.rules();
    let yours = match (rules.len(), a.choice.rule) {
        (0, _) => "none (no \"models\" of your own in gk.json)".to_string(),
        (n, Some(i)) => format!("{n}; rule {} matched and wins", i + 1),
        (n, None) => format!("{n}; none matched"),
    };
    out.push_str(&format!("your rules: {yours}\n"));
    let text = crate::hooks::prompt::without_check(prompt_text);
    let (scores, contributions) = advice::explain(text);
    let label = |t: Tier| crate::hooks::prompt::tier_label(config, t);
    let p = scores.probabilities();
    let shown: Vec<String> = Tier::ALL
        .iter()
        .map(|&t| format!("{} {:.1} %", label(t), p[t as usize] * 100.0))
        .collect();
    out.push_str(&format!("scores:     {}\n", shown.join(", ")));
    let g = scores.guard;
    let yes = |b: bool| if b { "yes" } else { "no" };
    out.push_str(&format!(
        "fable:      {} (explicit autonomy {}, step by step {}, scope {}, plan only {})\n",
        if g.lifts_fable() {
            format!("allowed, {:+.2} to its score", advice::fable_lift())
        } else if g.allows_fable() {
            "allowed".to_string()
        } else {
            "ruled out".to_string()
        },
        yes(g.autonomy),
        yes(g.stepwise),
        yes(g.scope),
        yes(g.plan_only)
    ));
    // The tier to explain: the advice, else the strongest contender for it.
    let l = scores.logits();
    let contender = scores.advice().unwrap_or_else(|| {
        let candidates: &[Tier] = if g.allows_fable() {
            &[Tier::Haiku, Tier::Opus, Tier::Fable]
        } else {
            &[Tier::Haiku, Tier::Opus]
        };
        let mut best = candidates[0];
        for &t in candidates {
            if l[t as usize] > l[best as usize] {
                best = t;
            }
        }
        best
    });
    let lead = l[contender as usize] - l[Tier::Sonnet as usize];
    let margin = advice::margin(contender);
    // Haiku's margin may be below zero: advised on a close call.
    let verdict = match scores.advice() {
        Some(_) if lead < 0.0 => format!(
            "advised: {} leads it by less than {:.2}",
            label(Tier::Sonnet),
            -margin
        ),
        Some(_) => "advised".to_string(),
        None if lead <= 0.0 && margin < 0.0 => format!(
            "not advised: {} leads it by more than {:.2}",
            label(Tier::Sonnet),
            -margin
        ),
        None if lead <= 0.0 => format!("not advised: {} leads it", label(Tier::Sonnet)),
        None => format!("not advised: it does not lead by the margin of {margin:.2}"),
    };
    out.push_str(&format!(
        "against {}: {} {:+.2} ({verdict})\n",
        label(Tier::Sonnet),
        label(contender),
        lead
    ));
    let mut ranked: Vec<&advice::Contribution> = contributions.iter().collect();
    ranked.sort_by(|x, y| y.toward(contender).total_cmp(&x.toward(contender)));
    let for_it: Vec<_> = ranked
        .iter()
        .filter(|c| c.toward(contender) > 0.0)
        .take(TOP_FOR)
        .collect();
    let against: Vec<_> = ranked
        .iter()
        .rev()
        .filter(|c| c.toward(contender) < 0.0)
        .take(TOP_AGAINST)
        .collect();
    if !for_it.is_empty() {
        out.push_str(&format!("for {}:\n", label(contender)));
        for c in for_it {
            out.push_str(&format!("  {:+.2}  {}\n", c.toward(contender), c.what));
        }
    }
    if !against.is_empty() {
        out.push_str(&format!("for {}:\n", label(Tier::Sonnet)));
        for c in against {
            out.push_str(&format!("  {:+.2}  {}\n", -c.toward(contender), c.what));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Switched off, the hook advises nothing: explain says so first,
    /// and still shows what it would make of the prompt.
    #[test]
    fn explanation_says_when_the_prompt_hook_is_off() {
        let off = config::parse_config(
            std::path::Path::new("gk.json"),
            r#"{"prompt": {"enabled": false}}"#,
        )
        .unwrap();
        let text = explanation("thanks", &off);
        assert!(
            text.starts_with("hook:       switched off in gk.json (`gk enable prompt` switches it on): the prompt hook says none of this\ncheck mode: no\n"),
            "{text}"
        );
        assert!(text.contains("model:      Haiku 4.5"), "{text}");
        assert!(!explanation("thanks", &Config::default()).contains("switched off"));
    }

    #[test]
    fn explanation_names_rule_keyword_words_and_effort() {
        let text = explanation("[check] please audit the ttl", &global());
        assert!(text.contains("check mode: yes"), "{text}");
        assert!(text.contains("words:      4\n"), "{text}");
        assert!(
            text.contains("Opus 5.5 (claude-opus-5-5) -- rule 1 of 4, keyword 'ttl'"),
            "{text}"
        );
        assert!(
            text.contains("effort:     high (keyword 'audit')"),
            "{text}"
        );
    }

    #[test]
    fn explanation_reports_length_skip_and_default() {
        let text = explanation("ok one two three four five six seven eight", &global());
        assert!(
            text.contains("skipped:    Haiku 4.5 (only for prompts of at most 8 words)"),
            "{text}"
        );
        assert!(text.contains("default, no rule keyword found"), "{text}");
        assert!(text.contains("effort:     none"), "{text}");
    }

    fn global() -> Config {
        let mut c = Config::default();
        c.state.scope = crate::hooks::config::StateScope::Global;
        c
    }

    #[test]
    fn keyword_explanation_in_global_scope_and_with_keywords_advice() {
        let text = explanation("[check] please audit the ttl", &global());
        assert!(!text.contains("advice:"), "{text}");
        let keywords = Config {
            advice: Some(config::Advice::Keywords),
            ..Config::default()
        };
        assert_eq!(explanation("[check] please audit the ttl", &keywords), text);
    }

    /// `gk explain` per session (the recommender), whole, for a dozen
    /// prompts of different kinds. The scores come from the trained
    /// weights: retraining changes these snapshots, which is the point
    /// (review them with the training's figures).
    #[test]
    fn explanation_snapshots_per_session() {
        let cases = [
            ("confirmation", "ok"),
            ("thanks", "thanks, that works"),
            ("typo", "fix the typo in the README"),
            ("small_feature", "add a --verbose flag to the CLI and a test for it"),
            (
                "framed_hard_question",
                "quick question: why does the worker pool deadlock under load?",
            ),
            (
                "pasted_error",
                "Fix the TypeError in @src/app.ts\n```\nTypeError: x is undefined\n    at run (app.ts:3:1)\n```",
            ),
            (
                "design",
                "design the schema for multi-tenant billing with usage-based pricing and explain the tradeoffs",
            ),
            (
                "autonomous_migration",
                "migrate every service in the monorepo to the new logging library overnight, don't stop until all tests pass",
            ),
            (
                "plan_only",
                "plan only, don't execute: migrate every service in the monorepo to the new logging library overnight",
            ),
            // Away for days, with a scope: the guard opens and lifts Fable.
            (
                "away_for_the_weekend",
                "I'm offline for the weekend: go through every open issue labelled bug, fix each one with a test and open a PR per fix",
            ),
            // Work told step by step, with a scope: the guard opens, no lift.
            (
                "step_by_step",
                "add a unit test for each of the 12 handlers in src/api, one by one",
            ),
            ("check_refactor", "[check] refactor the whole module"),
            ("briefly", "briefly, what does set -e do?"),
            ("audit", "audit the login flow for security holes"),
            ("yes_no", "did the tests pass?"),
            // Sonnet leads Haiku by a little: silence (Haiku is advised
            // only when it leads; a margin below zero once advised it).
            ("close_call", "remove the unused imports"),
        ];
        let config = Config::default();
        for (name, prompt) in cases {
            insta::assert_snapshot!(
                format!("explain_{name}"),
                explanation(prompt, &config),
                prompt
            );
        }
    }

    /// A rule of the user's wins over the recommender, and says so.
    #[test]
    fn a_users_rule_wins_over_the_recommender() {
        let c = Config {
            models: vec![config::rule("Big", "big-1", "hard things", &["prove"])].into(),
            ..Config::default()
        };
        let text = explanation("prove it", &c);
        assert!(
            text.contains("your rules: 1; rule 1 matched and wins"),
            "{text}"
        );
        assert!(
            text.contains("model:      Big (big-1) -- rule 1 of 1, keyword 'prove' (your rule: it wins over the recommender)"),
            "{text}"
        );
        let text = explanation("ok", &c);
        assert!(text.contains("your rules: 1; none matched"), "{text}");
        assert!(
            text.contains("-- the recommender; strongest sign: "),
            "{text}"
        );
    }
}
