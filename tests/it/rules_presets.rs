//! The built-in rule sets against ordinary prompts. `gk rules --preset
//! software` is for general software work; the table below is what a
//! careful user would pick for each prompt, and why. The test saves the
//! preset's output as gk.json (as a user would) and asks `gk explain`.
//! v5's rules stay the default (and the global scope's, for parity).

use crate::common::TestEnv;

/// (prompt, the model it should get, why).
const SOFTWARE: &[(&str, &str, &str)] = &[
    ("ok", "Haiku 4.5", "a confirmation: nothing to think about"),
    ("yes, go ahead", "Haiku 4.5", "a confirmation"),
    ("thanks, that works", "Haiku 4.5", "a thank-you"),
    ("fix typo in README", "Haiku 4.5", "a one-word edit"),
    ("continue", "Haiku 4.5", "carry on with what is planned"),
    (
        "rename foo to bar in utils.py",
        "Haiku 4.5",
        "a mechanical rename",
    ),
    (
        "add a unit test for parse_date",
        "Sonnet 5",
        "everyday coding: the default",
    ),
    (
        "why is this test failing on CI?",
        "Sonnet 5",
        "an ordinary failure to read",
    ),
    (
        "explain what this function does",
        "Sonnet 5",
        "an explanation",
    ),
    (
        "update the changelog for the release",
        "Sonnet 5",
        "a routine edit",
    ),
    (
        "add a --verbose flag to the CLI",
        "Sonnet 5",
        "a small feature",
    ),
    (
        "write a bash script that backs up the logs",
        "Sonnet 5",
        "a short script",
    ),
    (
        "ok, now add tests for the parser and the lexer",
        "Sonnet 5",
        "starts with ok, but is real work: too long for the small model",
    ),
    ("refactor the whole module", "Opus 5.5", "a large refactor"),
    (
        "design the architecture of the plugin system",
        "Opus 5.5",
        "design work",
    ),
    (
        "find the root cause of this race condition",
        "Opus 5.5",
        "hard debugging",
    ),
    (
        "migrate the database layer from sqlite to postgres",
        "Opus 5.5",
        "a migration across the code",
    ),
    (
        "review the security of the auth flow",
        "Opus 5.5",
        "a security review",
    ),
    (
        "optimize the hot loop, it is too slow",
        "Opus 5.5",
        "performance work",
    ),
    (
        "investigate the memory leak in the worker",
        "Opus 5.5",
        "hard debugging",
    ),
];

/// The label `gk explain` reports for `prompt` with gk.json holding `config`.
fn label_for(env: &TestEnv, prompt: &str) -> String {
    let out = env.gk(["explain", prompt]).run();
    assert_eq!(
        out.code,
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = out.stdout_text();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("model:"))
        .unwrap_or_else(|| panic!("no model line: {text}"));
    line.trim().split(" (").next().unwrap().to_string()
}

fn score(env: &TestEnv) -> (usize, Vec<String>) {
    let mut wrong = Vec::new();
    for (prompt, want, why) in SOFTWARE {
        let got = label_for(env, prompt);
        if got != *want {
            wrong.push(format!("{prompt:?}: got {got}, want {want} ({why})"));
        }
    }
    (SOFTWARE.len() - wrong.len(), wrong)
}

#[test]
fn the_software_preset_gives_each_ordinary_prompt_the_model_the_table_says() {
    let env = TestEnv::new();
    let out = env.gk(["rules", "--preset", "software"]).run();
    assert_eq!(
        out.code,
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    env.write_config(&out.stdout_text());
    let (right, wrong) = score(&env);
    assert!(
        wrong.is_empty(),
        "{right}/{} right:\n{}",
        SOFTWARE.len(),
        wrong.join("\n")
    );
    // The default rules, on the same table, for the record (not asserted
    // beyond being worse: they are tuned to other work).
    env.write_config(r#"{"advice": "keywords"}"#);
    let (v5_right, _) = score(&env);
    eprintln!(
        "software preset {right}/{n}, default rules {v5_right}/{n}",
        n = SOFTWARE.len()
    );
    assert!(v5_right < right);
}

#[test]
fn a_preset_keeps_the_users_switches_and_scope_and_an_unknown_one_is_refused() {
    let env = TestEnv::new();
    env.write_config(r#"{"stop": {"enabled": false}, "state": {"scope": "global"}}"#);
    let out = env.gk(["rules", "--preset", "software"]).run();
    assert_eq!(out.code, Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stop"]["enabled"], false);
    assert_eq!(v["state"]["scope"], "global");
    assert!(v["models"].to_string().contains("refactor"));
    let out = env.gk(["rules", "--preset", "nope"]).run();
    assert_ne!(out.code, Some(0));
    // The default preset is the built-in rules, as plain `gk rules` prints
    // them with the keyword advice (per session the recommender is the
    // default, and a preset switches it off).
    env.write_config(r#"{"advice": "keywords"}"#);
    let plain = env.gk(["rules"]).run();
    let default = env.gk(["rules", "--preset", "default"]).run();
    assert_eq!(plain.stdout, default.stdout);
}
