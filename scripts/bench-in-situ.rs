//! The client's speed with gk installed ("in situ"): the pinned Claude
//! Code client (`GK_E2E_CLAUDE`) runs turns offline against the mock of
//! the end-to-end tests, in three arms interleaved round by round (after
//! one uncounted turn) so that drift in the machine's load hits all of them
//! alike: no hooks, an empty hook (`cat >/dev/null`: what any hook costs
//! the client to spawn) and gk. Prints how long the client says each hook
//! took (its debug log), the time to the first API request and the wall
//! time of the turn, as medians per arm. It checks only what cannot flake:
//! every gk run is reported, once per turn, exits 0 and finishes inside the
//! Stop entry's 5 s timeout.
//!
//! A benchmark, not a test: `scripts/bench-in-situ.sh [ROUNDS]` runs it
//! (`cargo bench --bench in_situ`, so gk is the release build);
//! docs/maintainers/benchmarks.md says what it shows.

// Starting the client, the mock and gk is this program's whole job
// (clippy.toml forbids process spawning for gk's own code).
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

#[path = "../tests/e2e/harness.rs"]
#[allow(dead_code, unused_macros)]
mod harness;

use std::process::ExitCode;

use harness::Sandbox;
use serde_json::json;

/// The canonical Linux commands `gk install` registers.
const PROMPT_COMMAND: &str = "\"$HOME/.claude/hooks/gk\" hook prompt";
const STOP_COMMAND: &str = "\"$HOME/.claude/hooks/gk\" hook stop";
const SESSION_COMMAND: &str = "\"$HOME/.claude/hooks/gk\" hook session";

/// The user's settings before gk arrives (the "no hooks" arm).
const USER_SETTINGS_BEFORE: &str = "{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n";

fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values[values.len() / 2]
}

fn main() -> ExitCode {
    if let Some(reason) = harness::client_missing() {
        eprintln!("bench-in-situ: cannot run: {reason}");
        return ExitCode::FAILURE;
    }
    // cargo bench passes `--bench`; the one other argument is the rounds.
    let rounds: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map_or(3, |a| a.parse().expect("rounds: a whole number"));
    let mut sb = Sandbox::new(harness::client("bench-in-situ"));
    sb.write(&sb.user_settings(), USER_SETTINGS_BEFORE);
    sb.gk_ok(&["install", "--yes"]);
    let with_gk = sb.read(&sb.user_settings());
    let empty_hook = json!({"hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >/dev/null"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "cat >/dev/null", "timeout": 5}]}]
    }})
    .to_string();
    sb.turn("explain the build").single_context(); // not counted

    #[derive(Default)]
    struct Arm {
        session_ms: Vec<u64>,
        prompt_ms: Vec<u64>,
        stop_ms: Vec<u64>,
        to_request_ms: Vec<u64>,
        wall_ms: Vec<u64>,
    }
    let mut arms: [(&str, &str, Arm); 3] = [
        ("no hooks", USER_SETTINGS_BEFORE, Arm::default()),
        ("empty hook", &empty_hook, Arm::default()),
        ("gk", &with_gk, Arm::default()),
    ];
    for _ in 0..rounds {
        for (name, settings, arm) in arms.iter_mut() {
            sb.write(&sb.user_settings(), settings);
            let turn = sb.turn("explain the build");
            turn.assert_completed();
            let runs = turn.hook_runs();
            for run in &runs {
                assert_eq!(run.status, 0, "{name}: {run:?}");
                match run.event.as_str() {
                    "SessionStart" => arm.session_ms.push(run.millis),
                    "UserPromptSubmit" => arm.prompt_ms.push(run.millis),
                    "Stop" => arm.stop_ms.push(run.millis),
                    other => panic!("{name}: unexpected hook event {other}"),
                }
            }
            if *name == "gk" {
                turn.single_context();
                let commands: Vec<&str> = runs.iter().map(|r| r.command.as_str()).collect();
                assert_eq!(
                    commands,
                    [SESSION_COMMAND, PROMPT_COMMAND, STOP_COMMAND],
                    "{name}"
                );
            }
            arm.to_request_ms
                .push(turn.time_to_request_ms().expect("time_to_request_ms"));
            arm.wall_ms.push(turn.wall.as_millis() as u64);
        }
    }
    let gk = &arms[2].2;
    assert_eq!(gk.session_ms.len(), rounds, "one session check per turn");
    assert_eq!(gk.prompt_ms.len(), rounds, "one prompt hook run per turn");
    assert_eq!(gk.stop_ms.len(), rounds, "one stop hook run per turn");
    assert!(gk.stop_ms.iter().all(|&ms| ms < 5_000), "{:?}", gk.stop_ms);

    let mut report = format!(
        "gk in situ: claude {}, gk the {} build, {rounds} turns per arm, medians in ms:\n  \
         {:<11} {:>13} {:>12} {:>10} {:>15} {:>10}\n",
        harness::client_version(),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        "arm",
        "session hook",
        "prompt hook",
        "stop hook",
        "to 1st request",
        "turn wall"
    );
    let med = |v: &[u64]| {
        if v.is_empty() {
            "-".to_string()
        } else {
            median(v.to_vec()).to_string()
        }
    };
    for (name, _, arm) in &arms {
        report += &format!(
            "  {:<11} {:>13} {:>12} {:>10} {:>15} {:>10}   (all: session {:?} prompt {:?} stop {:?} request {:?} wall {:?})\n",
            name,
            med(&arm.session_ms),
            med(&arm.prompt_ms),
            med(&arm.stop_ms),
            med(&arm.to_request_ms),
            med(&arm.wall_ms),
            arm.session_ms,
            arm.prompt_ms,
            arm.stop_ms,
            arm.to_request_ms,
            arm.wall_ms,
        );
    }
    print!("{report}");
    ExitCode::SUCCESS
}
