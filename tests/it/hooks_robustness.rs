//! Whatever arrives on stdin and whatever is in task_state.json, both hooks
//! exit 0, write nothing to stderr, and print nothing or one JSON object on
//! one line. First the inputs the Python reference crashes on, then a few
//! hundred pseudo-random byte strings (a fixed-seed generator, so a failure
//! is reproducible; the case is printed).

#[cfg(unix)]
use crate::common::hooks::mkfifo;
use crate::common::{Run, TestEnv};

const PROMPT: &[&str] = &["hook", "prompt"];
const STOP: &[&str] = &["hook", "stop"];

#[test]
fn inputs_the_reference_crashes_on() {
    let env = TestEnv::new();
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("list", b"[1,2]".to_vec()),
        ("number", b"42".to_vec()),
        ("string", b"\"ok\"".to_vec()),
        ("null", b"null".to_vec()),
        ("null prompt", br#"{"prompt": null}"#.to_vec()),
        ("number prompt", br#"{"prompt": 5}"#.to_vec()),
        ("object prompt", br#"{"prompt": {"a": 1}}"#.to_vec()),
        (
            "truthy non-string user_prompt",
            br#"{"user_prompt": 7, "prompt": "ttl"}"#.to_vec(),
        ),
        ("invalid utf-8", b"{\"prompt\": \"ok \xff\xfe\"}".to_vec()),
        ("nan", br#"{"prompt": "ok", "x": NaN}"#.to_vec()),
        (
            "deep nesting",
            format!("{}{}", "[".repeat(5000), "]".repeat(5000)).into_bytes(),
        ),
    ];
    for (what, stdin) in &inputs {
        let run = env.gk(PROMPT).stdin(stdin.clone()).run();
        run.assert_hook_contract(what);
    }
    // Where the reference crashes on the prompt's type, gk answers as for
    // an empty prompt (or the `prompt` field); the keyword rules show which.
    env.write_config(r#"{"advice": "keywords"}"#);
    let run = env.gk(PROMPT).stdin(br#"{"prompt": null}"#.to_vec()).run();
    assert!(run.context().contains("no rule's keyword matched"));
    let run = env
        .gk(PROMPT)
        .stdin(br#"{"user_prompt": 7, "prompt": "ttl"}"#.to_vec())
        .run();
    assert!(run.system_message().contains("keyword 'ttl'"));
    let run = env.gk(PROMPT).stdin(b"[1,2]".to_vec()).run();
    assert!(run.context().contains("no rule's keyword matched"));
    // Invalid UTF-8 is read with replacement characters, not dropped.
    let run = env
        .gk(PROMPT)
        .stdin(b"{\"prompt\": \"ok \xff\"}".to_vec())
        .run();
    assert!(run.system_message().contains("keyword 'ok'"));
}

#[test]
fn ten_megabyte_prompt() {
    let env = TestEnv::new();
    let mut prompt = "lorem ipsum dolor ".repeat(10 * 1024 * 1024 / 18);
    prompt.push_str(" and finally sparql");
    // The recommender (the default per session) reads the first 2 KiB.
    env.prompt(&prompt)
        .assert_hook_contract("10 MB, recommender");
    // The keyword rules read it all.
    env.write_config(r#"{"advice": "keywords"}"#);
    let run = env.prompt(&prompt);
    run.assert_hook_contract("10 MB");
    assert!(run.system_message().contains("keyword 'sparql'"));
}

#[test]
fn odd_state_files() {
    let env = TestEnv::new();
    let states: Vec<(&str, Vec<u8>)> = vec![
        ("bom", b"\xEF\xBB\xBF{\"status\": \"clean\"}".to_vec()),
        ("list", b"[\"in_progress\"]".to_vec()),
        ("number", b"3".to_vec()),
        ("binary", vec![0, 159, 146, 150, 255]),
        ("non-string fields", br#"{"status": "in_progress", "task": {"a": [1, null]}, "detail": 0, "project": false, "updated": 12}"#.to_vec()),
        ("huge string", format!("{{\"status\": \"in_progress\", \"task\": \"{}\"}}", "x".repeat(1 << 20)).into_bytes()),
    ];
    for (what, bytes) in &states {
        env.write_state(bytes, 100);
        env.gk(PROMPT)
            .stdin(r#"{"prompt":"ok"}"#)
            .run()
            .assert_hook_contract(what);
        env.gk(STOP).stdin("{}").run().assert_hook_contract(what);
    }
    std::fs::remove_file(env.state_path()).unwrap();
    std::fs::create_dir(env.state_path()).unwrap();
    let stop = env.gk(STOP).stdin("{}").run();
    stop.assert_hook_contract("directory");
    assert_eq!(
        stop.system_message(),
        "STATE [UNKNOWN] task_state.json unreadable (IsADirectoryError) -- assuming clean"
    );
    env.gk(PROMPT)
        .stdin("{}")
        .run()
        .assert_hook_contract("directory");
}

#[test]
fn hooks_dir_that_is_a_file() {
    let env = TestEnv::new();
    env.write(env.hooks_dir(), "not a folder");
    let stop = env.gk(STOP).stdin("{}").run();
    stop.assert_hook_contract("hooks is a file");
    // Windows reports a path below a file as not found
    // (ERROR_PATH_NOT_FOUND), and so does the Python hook there
    // (FileNotFoundError): "missing", as the reference says on Windows.
    let reason = if cfg!(windows) {
        "missing"
    } else {
        "unreadable (NotADirectoryError)"
    };
    assert_eq!(
        stop.system_message(),
        format!("STATE [UNKNOWN] task_state.json {reason} -- assuming clean")
    );
    env.gk(PROMPT)
        .stdin("{}")
        .run()
        .assert_hook_contract("hooks is a file");
}

/// xorshift64*: small, seeded, good enough to spread bytes around.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Random bytes, often shaped like (broken) JSON so the parser gets past
    /// the first byte.
    fn bytes(&mut self) -> Vec<u8> {
        const PIECES: &[&[u8]] = &[
            b"{",
            b"}",
            b"[",
            b"]",
            b"\"",
            b":",
            b",",
            b"\\",
            b"\\u",
            b"d800",
            b"\"prompt\"",
            b"\"user_prompt\"",
            b"\"status\"",
            b"\"in_progress\"",
            b"\"clean\"",
            b"\"task\"",
            b"\"project\"",
            b"\"detail\"",
            b"\"updated\"",
            b"null",
            b"true",
            b"0",
            b"-1e999",
            b"[check]",
            b"ttl",
            b"ok",
            b" ",
            b"\t",
            b"\n",
            b"\xEF\xBB\xBF",
            b"\xff",
            b"\xc3",
            b"\xe2\x84\xaa",
            b"\xf0\x9f\x98\x80",
        ];
        let len = self.below(40);
        let mut out = Vec::new();
        for _ in 0..len {
            if self.below(3) == 0 {
                out.push(self.next() as u8);
            } else {
                out.extend_from_slice(PIECES[self.below(PIECES.len())]);
            }
        }
        out
    }
}

#[test]
fn arbitrary_bytes_on_stdin_and_in_the_state_file() {
    let env = TestEnv::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..150 {
        let stdin = rng.bytes();
        let state = rng.bytes();
        env.write_state(&state, rng.below(100 * 3600) as u64);
        let what = format!("case {i}: stdin {stdin:?} state {state:?}");
        env.gk(PROMPT)
            .stdin(stdin.clone())
            .run()
            .assert_hook_contract(&what);
        env.gk(STOP).stdin(stdin).run().assert_hook_contract(&what);
    }
}

#[test]
fn arbitrary_bytes_as_a_structurally_valid_prompt_and_state() {
    // Valid JSON around random text, so the matching code (not just the
    // parser) sees the garbage.
    let env = TestEnv::new();
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for i in 0..100 {
        let prompt = String::from_utf8_lossy(&rng.bytes()).into_owned();
        let task = String::from_utf8_lossy(&rng.bytes()).into_owned();
        let state = serde_json::json!({"status": if i % 2 == 0 { "in_progress" } else { "clean" },
                                       "task": task, "project": task, "detail": prompt});
        env.write_state(state.to_string(), rng.below(100 * 3600) as u64);
        let stdin = serde_json::json!({"prompt": prompt}).to_string();
        let what = format!("case {i}: {stdin}");
        let run = env.gk(PROMPT).stdin(stdin).run();
        run.assert_hook_contract(&what);
        assert!(!run.stdout.is_empty(), "{what}");
        let stop = env.gk(STOP).stdin("{}").run();
        stop.assert_hook_contract(&what);
        assert!(!stop.stdout.is_empty(), "{what}");
    }
}

/// Run a hook that must answer promptly: a hang (reading a pipe nobody
/// writes, or a device that never ends) fails the test instead of blocking
/// (a process: only a process can be killed).
fn run_within(env: &TestEnv, args: &[&str], stdin: &str) -> Run {
    env.gk(args)
        .timeout(std::time::Duration::from_secs(10))
        .stdin(stdin)
        .run()
}

#[cfg(unix)]
#[test]
fn state_file_that_is_a_pipe_or_a_device_does_not_hang() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.hooks_dir()).unwrap();
    mkfifo(&env.state_path());
    let stop = run_within(&env, STOP, "{}");
    stop.assert_hook_contract("fifo state");
    assert_eq!(
        stop.system_message(),
        "STATE [UNKNOWN] task_state.json unreadable (not a regular file) -- assuming clean"
    );
    let prompt = run_within(&env, PROMPT, r#"{"prompt":"ok"}"#);
    prompt.assert_hook_contract("fifo state");
    assert!(prompt
        .context()
        .contains("clean (task_state.json missing or unreadable -- assuming clean)"));

    // An endless device (a link to /dev/zero) is not read at all.
    std::fs::remove_file(env.state_path()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", env.state_path()).unwrap();
    let stop = run_within(&env, STOP, "{}");
    stop.assert_hook_contract("/dev/zero state");
    assert!(stop.system_message().contains("(not a regular file)"));
    run_within(&env, PROMPT, r#"{"prompt":"ok"}"#).assert_hook_contract("/dev/zero state");
}

#[test]
fn oversized_state_file_is_not_read_in_full() {
    // A real task_state.json is a few hundred bytes; one of 64 MiB is not
    // parsed on every prompt.
    let env = TestEnv::new();
    std::fs::create_dir_all(env.hooks_dir()).unwrap();
    let f = std::fs::File::create(env.state_path()).unwrap();
    f.set_len(64 << 20).unwrap();
    drop(f);
    let stop = run_within(&env, STOP, "{}");
    stop.assert_hook_contract("64 MiB state");
    assert_eq!(
        stop.system_message(),
        "STATE [UNKNOWN] task_state.json unreadable (larger than 64 KiB) -- assuming clean"
    );
    run_within(&env, PROMPT, r#"{"prompt":"ok"}"#).assert_hook_contract("64 MiB state");
}

#[cfg(unix)]
#[test]
fn config_file_that_is_a_pipe_or_a_device_does_not_hang() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.hooks_dir()).unwrap();
    mkfifo(&env.config_path());
    let want_for = |what: &str| {
        format!(
            " ! gk config ignored, using the built-in defaults: {}: not a regular file ({what})",
            env.config_path().display()
        )
    };
    let want = want_for("a named pipe");
    let prompt = run_within(&env, PROMPT, r#"{"prompt":"ttl"}"#);
    prompt.assert_hook_contract("fifo config");
    assert_eq!(prompt.system_message().lines().last().unwrap(), want);
    let stop = run_within(&env, STOP, "{}");
    stop.assert_hook_contract("fifo config");
    assert_eq!(stop.system_message().lines().last().unwrap(), want);

    std::fs::remove_file(env.config_path()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", env.config_path()).unwrap();
    let stop = run_within(&env, STOP, "{}");
    stop.assert_hook_contract("/dev/zero config");
    assert_eq!(
        stop.system_message().lines().last().unwrap(),
        want_for("a character device")
    );
}

#[test]
fn oversized_config_file_is_reported_not_read() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.hooks_dir()).unwrap();
    let f = std::fs::File::create(env.config_path()).unwrap();
    f.set_len(64 << 20).unwrap();
    drop(f);
    let stop = run_within(&env, STOP, "{}");
    stop.assert_hook_contract("64 MiB config");
    assert_eq!(
        stop.system_message().lines().last().unwrap(),
        format!(
            " ! gk config ignored, using the built-in defaults: {}: larger than 1 MiB",
            env.config_path().display()
        )
    );
}

#[test]
fn odd_environments_keep_the_hook_contract() {
    // The home folder (HOME; USERPROFILE on Windows: both are set) naming a
    // file or nothing, and CLAUDE_CONFIG_DIR empty, relative, or naming a
    // file: each hook still exits 0 with nothing on stderr and one JSON
    // line. (No home variable at all is left out: the home folder would then
    // come from the system, i.e. the real ~/.claude.)
    let env = TestEnv::new();
    let file = env.root().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    type EnvChange = (&'static str, Option<std::ffi::OsString>);
    let cases: Vec<(&str, Vec<EnvChange>)> = vec![
        (
            "home a file",
            vec![
                ("HOME", Some(file.clone().into())),
                ("USERPROFILE", Some(file.clone().into())),
            ],
        ),
        (
            "home missing",
            vec![
                ("HOME", Some(env.home().join("gone").into())),
                ("USERPROFILE", Some(env.home().join("gone").into())),
            ],
        ),
        (
            "CLAUDE_CONFIG_DIR empty",
            vec![("CLAUDE_CONFIG_DIR", Some("".into()))],
        ),
        (
            "CLAUDE_CONFIG_DIR relative",
            vec![("CLAUDE_CONFIG_DIR", Some("rel/dir".into()))],
        ),
        (
            "CLAUDE_CONFIG_DIR a file",
            vec![("CLAUDE_CONFIG_DIR", Some(file.clone().into()))],
        ),
    ];
    for (what, vars) in &cases {
        for (args, stdin) in [(PROMPT, r#"{"prompt":"ok"}"#), (STOP, "{}")] {
            let mut gk = env.gk(args);
            gk.current_dir(env.home());
            for (key, value) in vars {
                match value {
                    Some(v) => gk.env(key, v),
                    None => gk.env_remove(key),
                };
            }
            let run = gk.stdin(stdin).run();
            run.assert_hook_contract(what);
            assert!(!run.stdout.is_empty(), "{what}: {args:?}");
        }
    }
}
