//! The hook commands as a user meets them: registration mistakes, where the
//! files are found, the config file (switches, rules, errors), `gk rules`
//! and `gk explain`.

use std::path::Path;

use serde_json::Value;

use crate::common::{Run, TestEnv};

#[test]
fn mistyped_hook_name_exits_1_never_2() {
    let env = TestEnv::new();
    for args in [
        &["hook", "promt"][..],
        &["hook"][..],
        &["hook", "prompt", "extra"][..],
        &["hook", "Stop"][..],
        &["hook", "session", "startup"][..],
        &["hook", "Session"][..],
    ] {
        let run = env.gk(args).stdin(r#"{"prompt":"ok"}"#).run();
        assert_eq!(run.code, Some(1), "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(err.matches('\n').count(), 1, "{args:?}: {err:?}");
        assert!(
            err.starts_with(
                "gk: usage: gk hook prompt|stop|session|pre-model-switch|post-model-switch (got: "
            ),
            "{err}"
        );
    }
}

#[test]
fn stop_prints_only_system_message() {
    let env = TestEnv::new();
    env.write_state(r#"{"status":"in_progress","task":"t"}"#, 30 * 3600);
    let v = env.stop().json();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["systemMessage"]);
}

#[test]
fn claude_config_dir_replaces_home_dot_claude() {
    let env = TestEnv::new();
    env.write_state(r#"{"status":"clean"}"#, 60);
    let other = env.root().join("other");
    env.write(
        other.join("hooks").join("task_state.json"),
        r#"{"status":"in_progress","task":"elsewhere"}"#,
    );
    let out = env
        .gk(["hook", "stop"])
        .env("CLAUDE_CONFIG_DIR", &other)
        .stdin("{}")
        .run();
    assert!(out.system_message().contains("'elsewhere'"));
    // Empty means unset.
    let out = env
        .gk(["hook", "stop"])
        .env("CLAUDE_CONFIG_DIR", "")
        .stdin("{}")
        .run();
    let v = out.json();
    assert!(v["systemMessage"]
        .as_str()
        .unwrap()
        .starts_with("STATE [CLEAN]"));
}

#[test]
fn bom_in_state_file_is_accepted() {
    let env = TestEnv::new();
    env.write_state(
        b"\xEF\xBB\xBF{\"status\":\"in_progress\",\"task\":\"t\"}",
        60,
    );
    let run = env.stop();
    run.assert_hook_contract("bom");
    assert_eq!(
        run.system_message(),
        "STATE [DIRTY] task in progress: 't' (updated just now)\n ! Hold off switching model/effort until this task is complete"
    );
}

#[test]
fn state_that_is_not_an_object_is_unreadable_for_stop() {
    let env = TestEnv::new();
    for text in ["[1, 2]", "42", "\"clean\"", "null"] {
        env.write_state(text, 60);
        let run = env.stop();
        run.assert_hook_contract(text);
        assert_eq!(
            run.system_message(),
            "STATE [UNKNOWN] task_state.json unreadable (not a JSON object) -- assuming clean"
        );
        let p = env.prompt("ttl");
        p.assert_hook_contract(text);
        assert!(p
            .context()
            .contains("clean (task_state.json missing or unreadable -- assuming clean)"));
    }
}

#[test]
fn disabled_hooks_print_nothing() {
    let env = TestEnv::new();
    env.write_config(r#"{"prompt": {"enabled": false}, "stop": {"enabled": false}}"#);
    for run in [env.prompt("implement it"), env.stop()] {
        run.assert_hook_contract("disabled");
        assert!(run.stdout.is_empty());
    }
    // Each switch is independent.
    env.write_config(r#"{"stop": {"enabled": false}}"#);
    assert!(env.stop().stdout.is_empty());
    assert!(!env.prompt("x").stdout.is_empty());
}

#[test]
fn malformed_config_runs_on_defaults_and_says_where() {
    let env = TestEnv::new();
    env.write_config("{\n  \"stale_hours\": \"soon\"\n}\n");
    let path = env.config_path();
    let want = format!(
        " ! gk config ignored, using the built-in defaults: {}:2:23: invalid type: string \"soon\", expected u32",
        path.display()
    );
    let p = env.prompt("ok");
    p.assert_hook_contract("bad config");
    let msg = p.system_message();
    // The defaults per session: the recommender's advice.
    assert!(
        msg.starts_with(
            "GATEKEEPER\n Model : /model claude-haiku-4-5-20251001 (Haiku 4.5; strongest sign: "
        ),
        "{msg}"
    );
    assert_eq!(msg.lines().last().unwrap(), want, "{msg}");
    assert!(
        !p.context().contains("config"),
        "the note is for the user only"
    );
    let s = env.stop();
    s.assert_hook_contract("bad config stop");
    assert_eq!(s.system_message().lines().last().unwrap(), want);

    env.write_config("{ not json");
    let msg = env.prompt("ok").system_message();
    assert!(
        msg.contains(&format!("{}:1:3: key must be a string", path.display())),
        "{msg}"
    );
}

#[test]
fn a_valid_off_switch_holds_even_when_the_rest_is_wrong() {
    let env = TestEnv::new();
    env.write_config(r#"{"prompt": {"enabled": false}, "models": 3}"#);
    assert!(env.prompt("implement it").stdout.is_empty());
    let s = env.stop();
    assert!(s.system_message().contains("gk config ignored"));
}

#[test]
fn config_that_is_a_directory_is_reported_not_fatal() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.config_path()).unwrap();
    let run = env.prompt("ok");
    run.assert_hook_contract("config dir");
    assert!(run.system_message().contains("gk config ignored"));
}

#[test]
fn custom_rules_replace_the_built_in_ones() {
    let env = TestEnv::new();
    env.write_config(
        r#"{
  "models": [
    {"label": "Big", "model": "big-1", "purpose": "hard things", "keywords": ["prove"], "warning": "costly"},
    {"label": "Tiny", "model": "tiny-1", "purpose": "short things", "keywords": ["hi"], "max_words": 2}
  ],
  "default_model": {"label": "Mid", "model": "mid-1", "purpose": "the rest"},
  "effort": {"high": ["carefully"], "low": []},
  "stale_hours": 1,
  "advice": "keywords"
}"#,
    );
    let p = env.prompt("prove it carefully");
    assert_eq!(
        p.system_message(),
        "GATEKEEPER\n Model : /model big-1 (Big; keyword 'prove')\n Use for: hard things\n Effort : consider /effort high\n ! costly"
    );
    assert!(p.context().contains("Suggested model: Big (`/model big-1`; matched keyword 'prove'; hard things). Suggested effort: high. costly [Task state]"));
    assert!(env
        .prompt("hi there")
        .system_message()
        .contains("/model tiny-1 (Tiny; keyword 'hi')"));
    // Over Tiny's word limit, and built-in keywords no longer apply: the
    // default model, which the user is not shown (show_model: on_match).
    let p = env.prompt("hi there you");
    assert_eq!(p.shown(), None, "{}", p.stdout_text());
    assert!(
        p.context().contains(
            "Suggested model: Mid (`/model mid-1`; no rule's keyword matched, so the default; the rest)."
        ),
        "{}",
        p.context()
    );
    assert_eq!(env.prompt("quick ttl").shown(), None);
    // stale_hours: 1 makes a 2h-old in_progress state stale.
    env.write_state(r#"{"status":"in_progress","task":"t"}"#, 2 * 3600 + 300);
    assert!(env
        .stop()
        .system_message()
        .contains(" ! flagged in_progress for 2h -- may be stale."));
}

#[test]
fn haiku_word_limit_is_configurable() {
    let env = TestEnv::new();
    env.write_config(r#"{"haiku_max_words": 2, "advice": "keywords"}"#);
    assert!(env.prompt("ok then").system_message().contains("Haiku 4.5"));
    assert_eq!(env.prompt("ok then go").shown(), None);
}

/// Per session (the default) the recommender speaks after the user's own
/// rules: a rule whose keyword matches wins, whatever the recommender
/// would say; otherwise the recommender's tier, with its reason, and a
/// rule of the user's for that tier gives the label and model.
#[test]
fn per_session_your_rules_win_and_the_recommender_speaks_after_them() {
    let env = TestEnv::new();
    // No gk.json: the seed's keywords are not the user's rules ("implement"
    // alone is no Opus rule any more).
    let msg = env.prompt("ok").system_message();
    assert!(
        msg.starts_with(
            "GATEKEEPER\n Model : /model claude-haiku-4-5-20251001 (Haiku 4.5; strongest sign: "
        ),
        "{msg}"
    );
    let context = env.prompt("ok").context();
    assert!(
        context.contains("Suggested model: Haiku 4.5 (`/model claude-haiku-4-5-20251001`; the recommender's strongest sign: "),
        "{context}"
    );
    let context = env.prompt("[check] ok").context();
    assert!(
        context.contains("gk's recommender guessed Haiku 4.5; override it if"),
        "{context}"
    );
    env.write_config(
        r#"{"models": [
  {"label": "Big", "model": "big-1", "purpose": "hard things", "keywords": ["ok"]},
  {"label": "Haiku mine", "model": "h-1", "purpose": "small things", "keywords": ["zzz"], "command": "haiku"}
]}"#,
    );
    let msg = env.prompt("ok").system_message();
    assert_eq!(
        msg,
        "GATEKEEPER\n Model : /model big-1 (Big; keyword 'ok')\n Use for: hard things"
    );
    // No rule of the user's fires: the recommender's tier, named by the
    // user's own rule for it.
    let msg = env.prompt("thanks").system_message();
    assert!(
        msg.starts_with("GATEKEEPER\n Model : /model haiku (Haiku mine; strongest sign: "),
        "{msg}"
    );
    // Nothing strong: silence.
    assert_eq!(
        env.prompt("add a retry with backoff to the upload function")
            .shown(),
        None
    );
    // `"advice": "keywords"`: the seed's rules again, first match.
    env.write_config(r#"{"advice": "keywords"}"#);
    assert!(env
        .prompt("implement it")
        .system_message()
        .contains("(Opus 5.5; keyword 'implement')"));
}

#[test]
fn rules_output_is_a_valid_config_that_round_trips() {
    let env = TestEnv::new();
    let first = env.gk(["rules"]).run();
    assert_eq!(first.code, Some(0));
    let v: Value = serde_json::from_slice(&first.stdout).unwrap();
    // Per session: the recommender, and no rules of the user's.
    assert_eq!(v["advice"], "learned");
    assert_eq!(v["models"], serde_json::json!([]));
    assert!(v["effort"]["high"].to_string().contains("thoroughly"));
    assert_eq!(v["haiku_max_words"], 8);
    assert_eq!(v["stale_hours"], 24);
    assert_eq!(v["prompt"]["enabled"], true);
    // Saved as gk.json it changes nothing.
    env.write_config(&first.stdout_text());
    let again = env.gk(["rules"]).run();
    assert!(again.stderr.is_empty());
    assert_eq!(again.stdout, first.stdout);
    // And it reflects the user's file.
    env.write_config(r#"{"stop": {"enabled": false}, "stale_hours": 6}"#);
    let v: Value = serde_json::from_slice(&env.gk(["rules"]).run().stdout).unwrap();
    assert_eq!(v["stop"]["enabled"], false);
    assert_eq!(v["stale_hours"], 6);
}

#[test]
fn rules_with_a_broken_config_refuse_and_print_nothing_on_stdout() {
    // `gk rules > gk.json` must not replace the user's file with defaults.
    let env = TestEnv::new();
    env.write_config("[]");
    let run = env.gk(["rules"]).run();
    assert_ne!(run.code, Some(0));
    assert!(run.stdout.is_empty());
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("gk.json:1:1: expected a JSON object"), "{err}");
}

#[test]
fn explain_shows_rule_keyword_words_effort_and_check_mode() {
    let env = TestEnv::new();
    env.write_config(r#"{"advice": "keywords"}"#);
    let run = env
        .gk(["explain", "[check] quick review all of the ttl files"])
        .run();
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stdout_text(),
        "check mode: yes ([check] prefix stripped; the task will not be run)\n\
         words:      7\n\
         model:      Opus 5.5 (claude-opus-5-5) -- rule 1 of 4, keyword 'ttl'\n\
         use for:    complex reasoning, TTL/SPARQL authoring, ontology work, deep reviews\n\
         effort:     high (keyword 'review all')\n"
    );
    let run = env.gk(["explain", "end to end please"]).run();
    let text = run.stdout_text();
    assert!(text.contains("Fable 5.1 (claude-fable-5-1) -- rule 4 of 4, keyword 'end to end'"));
    assert!(text.contains("warning:    NOTE: Fable 5.1 is the most expensive tier."));
}

/// Run `gk <args>` with a terminal as its stdin that nobody types into (a
/// pseudo-terminal made by python3's `pty` module, the simplest portable
/// way to get one here; a process, under python3). A run that waits on the
/// terminal is killed after 5 s and reported as exit 99.
#[cfg(unix)]
fn run_on_a_terminal(env: &TestEnv, args: &[&str]) -> (i32, String) {
    const ON_A_PTY: &str = r#"
import pty, subprocess, sys
m, s = pty.openpty()
try:
    p = subprocess.run(sys.argv[1:], stdin=s, capture_output=True, timeout=5)
except subprocess.TimeoutExpired:
    sys.exit(99)
sys.stdout.buffer.write(p.stdout)
sys.exit(p.returncode)
"#;
    crate::common::require_tool("python3");
    let o = assert_cmd::Command::from_std(env.command("python3"))
        .arg("-c")
        .arg(ON_A_PTY)
        .arg(crate::common::gk_bin())
        .args(args)
        .current_dir(env.home())
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        o.status.code().unwrap(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[cfg(unix)]
#[test]
fn run_by_hand_in_a_terminal_the_hooks_do_not_wait_for_stdin() {
    // Claude Code always pipes the event in; a terminal on stdin means a
    // person typed `gk hook stop` to look. The Stop hook ignores stdin, so
    // it answers at once; the prompt hook has no event and prints nothing.
    let env = TestEnv::new();
    env.write_state(r#"{"status":"clean"}"#, 60);
    let (code, out) = run_on_a_terminal(&env, &["hook", "stop"]);
    assert_eq!(code, 0, "{out:?}");
    assert!(
        out.starts_with(
            r#"{"systemMessage": "STATE [CLEAN] safe to switch model or effort (updated "#
        ),
        "{out:?}"
    );
    let (code, out) = run_on_a_terminal(&env, &["hook", "prompt"]);
    assert_eq!((code, out.as_str()), (0, ""));
    // The session check has no event either: it checks the settings of the
    // folder it runs in, at once (here: nothing registers gk's hooks).
    let (code, out) = run_on_a_terminal(&env, &["hook", "session"]);
    assert_eq!(code, 0, "{out:?}");
    assert!(
        out.starts_with(
            r#"{"systemMessage": "gk: gk's prompt hook (UserPromptSubmit) is not registered"#
        ),
        "{out:?}"
    );
}

/// `gk <args> > file` as a shell runs it: the file opened for writing
/// (created, or emptied, before gk starts) as gk's stdout. A process: its
/// stdout is the file.
fn redirected(env: &TestEnv, args: &[&str], file: &Path) -> Run {
    let stdout = std::fs::File::create(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    redirected_to(env, args, stdout)
}

/// `gk <args>` with `stdout` (a file opened as a shell would) as its
/// stdout.
#[allow(clippy::disallowed_methods)]
fn redirected_to(env: &TestEnv, args: &[&str], stdout: std::fs::File) -> Run {
    let out = env
        .gk(args)
        .to_command()
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .output()
        .unwrap();
    Run::from(out)
}

/// `text` as Windows PowerShell 5.1's `>` writes it: UTF-16LE with a BOM.
fn utf16le_with_bom(text: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_le_bytes());
    }
    out
}

#[test]
fn rules_saved_by_windows_powershell_redirection_are_used() {
    // docs/configuration.md has `gk rules > …/gk.new.json`, moved to gk.json; in
    // Windows PowerShell 5.1 that writes UTF-16LE with a BOM.
    let env = TestEnv::new();
    let rules = env.gk(["rules"]).run().stdout_text();
    let edited = rules.replacen("\"enabled\": true", "\"enabled\": false", 2);
    assert_ne!(edited, rules);
    env.write(env.config_path(), utf16le_with_bom(&edited));
    let stop = env.stop();
    stop.assert_hook_contract("utf-16 config");
    assert!(stop.stdout.is_empty(), "{}", stop.stdout_text());
    let explain = env.gk(["explain", "ok"]).run();
    assert!(
        explain.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&explain.stderr)
    );

    // Big-endian with a BOM too; and a custom rule in it takes effect.
    let custom =
        r#"{"models": [{"label": "Tiny", "model": "t", "purpose": "p", "keywords": ["héllo"]}]}"#;
    let mut be = vec![0xFE, 0xFF];
    for unit in custom.encode_utf16() {
        be.extend_from_slice(&unit.to_be_bytes());
    }
    env.write(env.config_path(), be);
    let p = env.prompt("HÉLLO there");
    p.assert_hook_contract("utf-16be config");
    assert_eq!(
        p.system_message(),
        "GATEKEEPER\n Model : /model t (Tiny; keyword 'h\u{e9}llo')\n Use for: p"
    );
}

/// `gk rules >> gk.json`: the shell keeps the file's text, so a second
/// config printed after it would leave two objects, which the hooks read
/// as no config at all (a hook switched off in it back on). Nothing is
/// printed, and the file stays as it was.
#[cfg(unix)]
#[test]
fn appending_the_rules_to_gk_json_itself_prints_nothing_and_keeps_the_file() {
    let env = TestEnv::new();
    let before = "{\"stop\": {\"enabled\": false}, \"stale_hours\": 3}";
    env.write_config(before);
    // What `>>` opens.
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(env.config_path())
        .unwrap();
    let out = redirected_to(&env, &["rules"], file);
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stderr_text(),
        format!(
            "gk: stdout is {} itself, which still holds its text (`>>` adds to it): a second config after it would leave a file the hooks cannot read; nothing printed (write to another file and move it over gk.json)\n",
            env.config_path().display()
        )
    );
    assert_eq!(std::fs::read_to_string(env.config_path()).unwrap(), before);
}

#[test]
fn saving_the_rules_with_a_shell_redirect_works_and_an_empty_file_is_no_config() {
    // `gk rules > <claude dir>/hooks/gk.json` on a fresh machine: the shell
    // creates the file empty before gk reads it. That must not print a
    // "config ignored" error (only the note that anything the file held is
    // not in the output), and the saved file must be used.
    let env = TestEnv::new();
    std::fs::create_dir_all(env.hooks_dir()).unwrap();
    let saved = redirected(&env, &["rules"], &env.config_path());
    assert_eq!(saved.code, Some(0));
    let err = String::from_utf8_lossy(&saved.stderr);
    // The note needs to know which file stdout is: Unix only
    // (docs/limitations.md); Windows gets no note and no error.
    assert_eq!(
        err.starts_with("gk: note: writing into gk.json itself"),
        cfg!(unix),
        "{err}"
    );
    assert!(!err.contains("ignored"), "{err}");
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    assert!(text.contains("\"models\""), "{text}");
    assert!(!env.stop().system_message().contains("gk config"));

    // An empty (or blank) gk.json configures nothing: no note on any hook.
    for blank in ["", "\n", "\u{feff}  \r\n"] {
        env.write_config(blank);
        for run in [env.stop(), env.prompt("ok")] {
            run.assert_hook_contract("blank config");
            assert!(
                !run.system_message().contains("gk config"),
                "{blank:?}: {}",
                run.system_message()
            );
        }
        let rules = env.gk(["rules"]).run();
        assert_eq!(String::from_utf8_lossy(&rules.stderr), "", "{blank:?}");
    }
}

#[test]
fn enable_and_disable_switch_exactly_one_hook_also_under_claude_config_dir() {
    let env = TestEnv::new();
    let cfg = env.root().join("other").join("cfg");
    for dir in [None, Some(&cfg)] {
        let run = |args: &[&str], stdin: &str| {
            let mut gk = env.gk(args);
            if let Some(d) = dir {
                gk.env("CLAUDE_CONFIG_DIR", d);
            }
            gk.stdin(stdin).run()
        };
        let answers = || {
            let p = run(&["hook", "prompt"], r#"{"prompt":"ttl"}"#);
            let s = run(&["hook", "stop"], "{}");
            for out in [&p, &s] {
                assert_eq!(out.code, Some(0));
                assert!(out.stderr.is_empty());
            }
            (!p.stdout.is_empty(), !s.stdout.is_empty())
        };
        let switch = |args: &[&str]| {
            let out = run(args, "");
            assert_eq!(out.code, Some(0), "{args:?} {dir:?}");
        };
        assert_eq!(answers(), (true, true), "{dir:?}");
        switch(&["disable", "stop", "--yes"]);
        assert_eq!(answers(), (true, false), "{dir:?}");
        switch(&["disable", "prompt", "--yes"]);
        assert_eq!(answers(), (false, false), "{dir:?}");
        // Under CLAUDE_CONFIG_DIR the file lives there, not in ~/.claude.
        if dir.is_some() {
            assert!(cfg.join("hooks").join("gk.json").is_file());
            assert!(!env.config_path().exists());
        }
        switch(&["enable", "stop", "--yes"]);
        assert_eq!(answers(), (false, true), "{dir:?}");
        switch(&["enable", "prompt", "--yes"]);
        assert_eq!(answers(), (true, true), "{dir:?}");
    }
    // Both back on: the file the switches made is gone again.
    assert!(!cfg.join("hooks").join("gk.json").exists());
}

#[test]
fn a_misspelt_hook_subcommand_exits_1_never_2() {
    // `gk hok prompt` or `gk hooks prompt` in a registration is as much a
    // typo as `gk hook promt`: exit 2 on UserPromptSubmit would block every
    // prompt and erase what the user typed.
    let env = TestEnv::new();
    for args in [
        &["hok", "prompt"][..],
        &["Hook", "prompt"][..],
        &["hooks", "stop"][..],
    ] {
        let run = env.gk(args).stdin(r#"{"prompt":"ok"}"#).run();
        assert_eq!(run.code, Some(1), "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains("'hook'"), "{args:?}: {err}");
    }
    // Other usage errors keep clap's exit 2 (documented for every command).
    assert_eq!(env.gk(["rulez"]).run().code, Some(2));
    assert_eq!(env.gk(["rules", "--bogus"]).run().code, Some(2));
}

#[test]
fn rules_output_is_ascii_so_a_windows_pipe_cannot_garble_it() {
    // Windows PowerShell re-encodes a program's output through the console
    // code page on `>`; non-ASCII letters in a label or keyword would come
    // back garbled in the saved gk.json. Escaped as \uXXXX they survive.
    let env = TestEnv::new();
    env.write_config(
        r#"{"models": [{"label": "Café — fast", "model": "m", "purpose": "naïve 🚀", "keywords": ["héllo", "日本"]}]}"#,
    );
    let first = env.gk(["rules"]).run();
    assert_eq!(first.code, Some(0));
    assert!(
        first.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(first.stdout.is_ascii(), "{}", first.stdout_text());
    let v: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["models"][0]["label"], "Café — fast");
    assert_eq!(v["models"][0]["purpose"], "naïve 🚀");
    assert_eq!(v["models"][0]["keywords"][1], "日本");
    // Saved back, it gives the same rules.
    env.write_config(&first.stdout_text());
    let again = env.gk(["rules"]).run();
    assert!(again.stderr.is_empty());
    assert_eq!(again.stdout, first.stdout);
    assert!(env
        .prompt("HÉLLO")
        .system_message()
        .contains("/model m (Caf\u{e9} \u{2014} fast; keyword 'h\u{e9}llo')"));
}

#[cfg(target_os = "linux")]
#[test]
fn rules_and_explain_report_a_failed_write() {
    // `gk rules > gk.json` on a full disk must not exit 0 as if saved.
    let env = TestEnv::new();
    for args in [&["rules"][..], &["explain", "ok"][..]] {
        let out = redirected(&env, args, Path::new("/dev/full"));
        assert_eq!(out.code, Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("gk: could not write"), "{args:?}: {err}");
    }
}

#[test]
fn check_mode_names_the_configured_models_not_the_built_in_ones() {
    // With the built-in rules the v5 sentence is kept byte for byte (the
    // parity fixtures hold it); with rules of one's own, Claude is asked to
    // choose among those, not among models the user has no rule for.
    let env = TestEnv::new();
    let builtin = env.prompt("[check] explain the build").context();
    assert!(
        builtin.contains(
            "(3) recommended model (Haiku 4.5, Sonnet 5, Opus 5.5 or Fable 5.1) and effort"
        ),
        "{builtin}"
    );
    env.write_config(
        r#"{"models": [
            {"label": "Big", "model": "big-1", "purpose": "hard things", "keywords": ["ttl"]},
            {"label": "Small", "model": "small-1", "purpose": "easy things", "keywords": ["ok"]}
        ],
        "default_model": {"label": "Middle", "model": "mid-1", "purpose": "the rest"}}"#,
    );
    let run = env.prompt("[check] explain the build");
    run.assert_hook_contract("check mode, own rules");
    let context = run.context();
    assert!(
        context.contains("(3) recommended model (Big, Small or Middle) and effort"),
        "{context}"
    );
    assert!(
        !context.contains("Haiku") && !context.contains("Fable"),
        "{context}"
    );

    // One model only (a rule whose label is also the default's): no "or".
    env.write_config(
        r#"{"models": [{"label": "Only", "model": "o", "purpose": "p", "keywords": ["ttl"]}],
            "default_model": {"label": "Only", "model": "o", "purpose": "p"}}"#,
    );
    let context = env.prompt("[check] ttl").context();
    assert!(
        context.contains("(3) recommended model (Only) and effort"),
        "{context}"
    );

    // The built-in labels in another order (keywords edited, rules reordered)
    // are still the v5 sentence.
    env.write_config("");
    let rules = env.gk(["rules", "--preset", "default"]).run().stdout_text();
    let mut v: Value = serde_json::from_str(&rules).unwrap();
    v["models"].as_array_mut().unwrap().reverse();
    env.write_config(&v.to_string());
    let context = env.prompt("[check] ttl").context();
    assert!(
        context.contains(
            "(3) recommended model (Haiku 4.5, Sonnet 5, Opus 5.5 or Fable 5.1) and effort"
        ),
        "{context}"
    );
}

#[cfg(unix)]
#[test]
fn saving_the_rules_keeps_a_hook_switched_off_and_redirecting_into_gk_json_says_what_is_lost() {
    let env = TestEnv::new();
    let prompt_is_off = || env.prompt("ttl").stdout.is_empty();
    assert_eq!(env.gk(["disable", "prompt", "--yes"]).run().code, Some(0));
    assert!(prompt_is_off());

    // The documented recipe: to another file, then into place.
    let other = env.hooks_dir().join("x.json");
    let saved = redirected(&env, &["rules"], &other);
    assert_eq!(saved.code, Some(0));
    std::fs::rename(&other, env.config_path()).unwrap();
    assert_eq!(String::from_utf8_lossy(&saved.stderr), "");
    let text = std::fs::read_to_string(env.config_path()).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["prompt"]["enabled"], false, "{text}");
    assert_eq!(v["stop"]["enabled"], true, "{text}");
    assert!(
        prompt_is_off(),
        "the saved rules switched the prompt hook back on"
    );

    // Straight into gk.json: the shell empties the file before gk reads
    // it. gk cannot bring the switch back, but it must not be silent.
    let direct = redirected(&env, &["rules"], &env.config_path());
    assert_eq!(direct.code, Some(0));
    let err = String::from_utf8_lossy(&direct.stderr);
    assert!(
        err.contains("gk disable") && err.contains("another file"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn hook_help_prints_the_hook_usage_and_exits_0() {
    let env = TestEnv::new();
    for flag in ["--help", "-h"] {
        let run = env.gk(["hook", flag]).run();
        assert_eq!(run.code, Some(0), "{flag}");
        assert!(run.stderr.is_empty(), "{flag}");
        let text = run.stdout_text();
        assert!(text.contains("Usage: gk hook"), "{flag}: {text}");
        assert!(text.contains("prompt") && text.contains("stop"), "{text}");
    }
}

#[test]
fn an_unknown_command_suggests_only_real_near_misses() {
    let env = TestEnv::new();
    for (word, meant) in [
        ("hok", Some("hook")),
        ("Hook", Some("hook")),
        ("docter", Some("doctor")),
        ("instal", Some("install")),
        ("unistall", Some("uninstall")),
        ("rulse", Some("rules")),
        ("foo", None),
        ("xyz", None),
        ("help-me", None),
        ("rulez", Some("rules")),
    ] {
        let run = env.gk([word]).run();
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(
            err.contains(&format!("unrecognized subcommand '{word}'")),
            "{word}: {err}"
        );
        match meant {
            Some(m) => assert!(
                err.contains(&format!("a similar subcommand exists: '{m}'")),
                "{word}: {err}"
            ),
            None => {
                assert!(!err.contains("similar"), "{word}: {err}");
                assert!(!err.contains("\n\n\n"), "{word}: {err:?}");
            }
        }
        // Only a mistyped `hook` (a broken registration) is kept off exit 2.
        let code = if meant == Some("hook") { 1 } else { 2 };
        assert_eq!(run.code, Some(code), "{word}: {err}");
    }
}

#[test]
fn completions_for_every_shell_name_every_command() {
    let env = TestEnv::new();
    let commands = [
        "install",
        "uninstall",
        "doctor",
        "enable",
        "disable",
        "rules",
        "explain",
        "completions",
    ];
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = env.gk(["completions", shell]).run();
        assert_eq!(run.code, Some(0), "{shell}");
        assert!(run.stderr.is_empty(), "{shell}");
        let script = run.stdout_text();
        assert!(script.len() > 500, "{shell}: {script}");
        for c in commands {
            assert!(script.contains(c), "{shell} completions lack {c}");
        }
        // Flags of a subcommand too (fish spells it `-l purge`).
        assert!(script.contains("purge"), "{shell}");
    }
    // The bash script is at least valid bash (checked where bash is a
    // given: not on Windows, whose bash comes with Git or not at all).
    #[cfg(unix)]
    {
        crate::common::require_tool("bash");
        let script = env.gk(["completions", "bash"]).run().stdout;
        let out = assert_cmd::Command::from_std(env.command("bash"))
            .arg("-n")
            .write_stdin(script)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(env.gk(["completions", "tcsh"]).run().code, Some(2));
}

#[test]
fn per_session_the_model_lines_show_only_when_a_keyword_matched_unless_asked() {
    let env = TestEnv::new();
    // No keyword: nothing shown, Claude still told the state and the model.
    let p = env.prompt("add a retry with backoff to the upload function");
    p.assert_hook_contract("no keyword");
    assert_eq!(p.shown(), None, "{}", p.stdout_text());
    assert!(p.context().starts_with("[Gatekeeper] State: "));
    // An effort keyword alone shows the lines.
    let msg = env.prompt("take a quick look").system_message();
    assert!(msg.contains("consider /effort low"), "{msg}");
    // A task in progress is always shown, advice or not.
    env.write_state(r#"{"status":"in_progress","task":"t"}"#, 60);
    let msg = env
        .prompt("add a retry with backoff to the upload function")
        .system_message();
    assert_eq!(
        msg,
        "GATEKEEPER\n ! task in progress: 't' (updated just now) -- hold off switching model or effort until it is done"
    );
    // Asked for every prompt: the default's line, in plain words.
    env.write_config(r#"{"show_model": "every_prompt"}"#);
    let msg = env
        .prompt("add a retry with backoff to the upload function")
        .system_message();
    assert!(
        msg.ends_with("\n For the next task: /model claude-sonnet-5 (Sonnet 5; no strong sign for another model: the default)"),
        "{msg}"
    );
    for v5_word in ["trigger", "Option D", "'default'"] {
        assert!(!msg.contains(v5_word), "{msg}");
        assert!(!env.prompt("ok").context().contains(v5_word));
    }
    env.write_config(r#"{"show_model": "sometimes"}"#);
    assert!(env
        .prompt("ok")
        .system_message()
        .contains("unknown show_model \"sometimes\""));
}
