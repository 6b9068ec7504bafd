//! The built-in rule sets `gk rules --preset NAME` prints: `default`
//! (the seed's rules, which the hooks use without a gk.json) and
//! `software` (general software work). Only `gk rules` uses them; the
//! hooks read whatever rules gk.json holds.

use crate::cli::Preset;
use crate::hooks::config::{keywords, rule, Config, DefaultModel, EffortKeywords};

/// Put `preset`'s rules (models, default model, effort keywords, word
/// limit) into `config`, keeping its switches, scope and the rest. A preset
/// is a set of keyword rules: it switches the recommender off
/// (`"advice": "keywords"`), so its rules alone decide, as they were
/// measured.
pub fn apply(config: &mut Config, preset: Preset) {
    config.advice = Some(crate::hooks::config::Advice::Keywords);
    let rules = match preset {
        Preset::Default => Config::default(),
        Preset::Software => software_rules(),
    };
    config.models = rules.models;
    config.default_model = rules.default_model;
    config.effort = rules.effort;
    config.haiku_max_words = rules.haiku_max_words;
}

/// The `software` preset: for general software work, measured against the
/// prompt table in tests/it/rules_presets.rs. Sonnet is the default and has no
/// rule of its own (a rule for it would only make the advice show the model
/// the user most likely has already); Opus for design, large changes and
/// hard debugging; Haiku for confirmations and trivial edits of at most six
/// words; no Fable rule (its cost is for long autonomous runs, which a
/// keyword cannot tell).
fn software_rules() -> Config {
    let mut haiku = rule(
        "Haiku 4.5",
        "claude-haiku-4-5-20251001",
        "confirmations, one-liners, trivial edits",
        &[
            "yes",
            "no",
            "ok",
            "okay",
            "thanks",
            "thank you",
            "go ahead",
            "proceed",
            "continue",
            "sounds good",
            "lgtm",
            "typo",
            "rename",
        ],
    );
    haiku.max_words = Some(6);
    Config {
        models: vec![
            rule(
                "Opus 5.5",
                "claude-opus-5-5",
                "design, large refactors, migrations, hard debugging, security and performance",
                &[
                    "architecture",
                    "design the",
                    "redesign",
                    "refactor",
                    "migrate",
                    "migration",
                    "root cause",
                    "race condition",
                    "deadlock",
                    "memory leak",
                    "investigate",
                    "security",
                    "vulnerability",
                    "performance",
                    "optimize",
                    "optimise",
                    "concurrency",
                    "whole codebase",
                    "across the codebase",
                ],
            ),
            haiku,
        ]
        .into(),
        default_model: DefaultModel {
            label: "Sonnet 5".into(),
            model: "claude-sonnet-5".into(),
            purpose: "everyday coding: features, fixes, tests, explanations".into(),
            warning: None,
            command: None,
        },
        effort: EffortKeywords {
            high: keywords(&[
                "root cause",
                "race condition",
                "security",
                "audit",
                "carefully",
                "thorough",
                "whole codebase",
            ]),
            low: keywords(&["typo", "quick", "briefly", "one line", "rename"]),
        }
        .into(),
        ..Config::default()
    }
}
