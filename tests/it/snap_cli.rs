//! The smaller commands, whole: `gk state`, `gk rules`, `gk explain`,
//! the completion scripts' first lines, `gk report` on an empty Claude
//! folder, and the errors a user meets first (a typo, an unknown flag, a
//! broken gk.json).

use crate::common::{set_age, TestEnv};
use crate::snapshots::{gk_in_project, installed, settings, transcript};

/// Run gk with `args` in `env`'s project and snapshot what it printed as `name`.
fn snap<const N: usize>(env: &TestEnv, name: &str, args: [&str; N]) {
    let run = gk_in_project(env, args).run();
    settings(env).bind(|| insta::assert_snapshot!(name, transcript(&run)));
}

/// An installed machine with two session records (one in progress, 20
/// minutes old, with a hint for the next prompt; one clean, 2 days old)
/// and the shared record, clean, 3 hours old. Both worked in `/home/ann/src/gk`.
fn machine_with_records() -> TestEnv {
    let env = installed();
    let dir = env.home().join(".local").join("state").join("gk");
    // A short folder (as Claude would write it): the list cuts a long
    // one, and a temporary folder's length varies by machine.
    let project = "/home/ann/src/gk";
    for (session, record, age) in [
        (
            "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f",
            serde_json::json!({"status": "in_progress", "task": "port the parser", "detail": "step 2 of 3", "project": "gk", "cwd": project, "updated": "2026-12-04T09:40:00", "next": "Opus 5.5, high effort"}),
            20 * 60,
        ),
        (
            "9b1c2d3e-4f50-4a6b-8c7d-0e1f2a3b4c5d",
            serde_json::json!({"status": "clean", "task": "", "detail": "", "project": "", "cwd": project, "updated": "2026-12-02T10:00:00"}),
            2 * 24 * 3600,
        ),
    ] {
        let path = dir.join(gk::testing::paths::record_file_name(session).unwrap());
        env.write(&path, serde_json::to_string_pretty(&record).unwrap());
        set_age(&path, age);
    }
    set_age(&env.state_path(), 3 * 3600);
    env
}

#[test]
fn state_lists_the_records_newest_first_then_the_shared_one() {
    let env = machine_with_records();
    snap(&env, "state_list", ["state"]);
}

#[test]
fn state_json_lists_every_field_of_each_record() {
    let env = machine_with_records();
    let run = gk_in_project(&env, ["state", "--json"]).run();
    let mut s = settings(&env);
    // The age in seconds moves on while the test runs; the text list
    // above shows it rounded.
    s.add_filter(r#""age_seconds": \d+"#, r#""age_seconds": [AGE]"#);
    s.bind(|| insta::assert_snapshot!("state_list_json", transcript(&run)));
}

#[test]
fn rules_in_global_scope_print_the_v5_table() {
    let env = TestEnv::new();
    env.write_config(r#"{"state": {"scope": "global"}}"#);
    snap(&env, "rules_global_scope", ["rules"]);
}

#[test]
fn rules_preset_software_prints_the_software_table() {
    snap(
        &TestEnv::new(),
        "rules_preset_software",
        ["rules", "--preset", "software"],
    );
}

#[test]
fn explain_in_global_scope_names_the_keyword_and_its_rule() {
    let env = TestEnv::new();
    env.write_config(r#"{"state": {"scope": "global"}}"#);
    snap(
        &env,
        "explain_global_scope_keyword",
        [
            "explain",
            "self-review the parser changes before the release",
        ],
    );
}

#[test]
fn explain_with_a_users_rule_says_the_rule_wins() {
    let env = TestEnv::new();
    env.write_config(
        r#"{"models": [{"label": "Opus 5.5", "model": "claude-opus-5-5", "purpose": "proofs", "keywords": ["prove"]}]}"#,
    );
    snap(
        &env,
        "explain_users_rule",
        ["explain", "prove that the scheduler never starves a task"],
    );
}

#[test]
fn explain_a_question_with_a_regex_shows_the_recommenders_scores() {
    snap(
        &TestEnv::new(),
        "explain_regex_question",
        ["explain", "what does ^(a|b)+$ match?"],
    );
}

/// docs/configuration.md shows `gk explain` at work: each block that
/// starts `$ gk explain "<prompt>"` is what gk prints for that prompt,
/// with no gk.json (the recommender) or, for a block the text puts "in
/// global scope, or with "advice": "keywords"", with the keyword rules.
/// A retraining moves the scores; this keeps the page in step.
#[test]
fn the_explain_examples_in_the_docs_are_what_gk_prints() {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md"),
    )
    .unwrap()
    .replace("\r\n", "\n");
    let mut found = 0;
    for (i, block) in page.split("```\n").enumerate() {
        let Some(rest) = block.strip_prefix("$ gk explain \"") else {
            continue;
        };
        let (prompt, shown) = rest.split_once("\"\n").unwrap();
        // The paragraph just before the block says which rules it runs on.
        let before = page.split("```\n").nth(i - 1).unwrap();
        let paragraph = before.trim_end().rsplit("\n\n").next().unwrap();
        let keywords = paragraph.contains(r#""advice": "keywords""#);
        let env = TestEnv::new();
        if keywords {
            env.write_config(r#"{"advice": "keywords"}"#);
        }
        let run = env.gk(["explain", prompt]).run();
        assert_eq!(run.code, Some(0), "{run:?}");
        assert_eq!(
            run.stdout_text(),
            shown,
            "docs/configuration.md, the block for {prompt:?} (keywords: {keywords})"
        );
        found += 1;
    }
    assert_eq!(found, 2, "the page's explain examples were not found");
}

/// The first `n` lines of `gk completions <shell>`.
fn completion_head(shell: &str, n: usize) -> String {
    let env = TestEnv::new();
    let run = env.gk(["completions", shell]).run();
    let text = run.ok();
    let head: Vec<&str> = text.lines().take(n).collect();
    format!("{}\n", head.join("\n"))
}

#[test]
fn completions_bash_starts_with_the_gk_function() {
    insta::with_settings!({prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("completions_bash_head", completion_head("bash", 10));
    });
}

#[test]
fn completions_powershell_starts_with_the_argument_completer() {
    insta::with_settings!({prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("completions_powershell_head", completion_head("powershell", 10));
    });
}

#[test]
fn a_mistyped_command_suggests_the_right_one() {
    snap(&TestEnv::new(), "error_instal", ["instal"]);
}

#[test]
fn an_unknown_flag_is_named_with_the_usage() {
    snap(&TestEnv::new(), "error_unknown_flag", ["--frobnicate"]);
}

/// A gk.json with a key gk does not know (`"modles"`).
fn broken_config() -> TestEnv {
    let env = installed();
    env.write_config("{\n  \"modles\": []\n}\n");
    env
}

#[test]
fn rules_on_a_broken_gk_json_names_the_file_and_the_key() {
    let env = broken_config();
    snap(&env, "error_rules_broken_config", ["rules"]);
}

#[test]
fn doctor_on_a_broken_gk_json_names_the_file_and_the_key() {
    let env = broken_config();
    snap(&env, "error_doctor_broken_config", ["doctor", "--no-smoke"]);
}

#[test]
fn report_on_an_empty_claude_folder_counts_nothing() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.claude().join("projects")).unwrap();
    snap(&env, "report_empty", ["report"]);
    snap(&env, "report_empty_json", ["report", "--json"]);
}
