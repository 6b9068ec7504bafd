//! Inputs that once made gk's work grow with the square of their size: a
//! long gk.json keyword against a long prompt, and settings files with
//! thousands of hook entries for doctor and install. Each case has a time
//! limit far above what linear work needs (even in a debug build) and far
//! below what the quadratic code took, so a regression fails here instead
//! of hanging a user's prompt. The speed itself is measured by
//! `scripts/bench-hooks.sh` and `scripts/bench-doctor.sh`, not here.

mod hooks_common;

use std::time::Duration;

use hooks_common::Home;

#[test]
fn a_long_keyword_against_a_long_prompt_is_answered_in_time() {
    // Before: 7.5 s (release) for 1,000 `a`s against a megabyte of `a`s,
    // 113 s for 10,000, on every prompt. The prompts stay under 256 KiB, a
    // size any bound on the hook's input must allow.
    let home = Home::new();
    let keyword = "a".repeat(10_000);
    home.write_config(
        &serde_json::json!({"models": [{"label": "Long", "model": "m", "purpose": "p", "keywords": [keyword]}]})
            .to_string(),
    );
    for (prompt, label) in [
        ("a".repeat(240_000), "Sonnet 5"),
        (format!("{} {keyword}.", "a".repeat(230_000)), "Long"),
    ] {
        let event = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt});
        let out = home
            .command(&["hook", "prompt"])
            .write_stdin(event.to_string())
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let run = hooks_common::Run {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
        };
        run.assert_hook_contract("long keyword");
        assert!(
            run.system_message()
                .contains(&format!("/model {label} (trigger:")),
            "{}",
            run.system_message()
        );
    }
}
