//! `scripts/windows/wine-runner.sh`, the runner of the test programs under
//! Wine, with a stand-in `wine` on PATH: it repeats a test program (up to
//! twice) when Wine itself failed to start or keep a process, and never repeats a
//! test program whose tests failed. A runner that repeated every failure
//! would let a flaky gk bug through CI; one that repeated none fails CI on
//! a Wine fault that says nothing about gk.
// A test of a script: it starts bash.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::common::Run;

/// What one call of the stand-in `wine` prints (stdout, stderr) and exits
/// with; the calls after the listed ones pass.
struct Script<'a> {
    runs: &'a [(&'a str, &'a str, i32)],
}

/// The runner's run, and how many times it called `wine`.
struct Outcome {
    run: Run,
    calls: usize,
}

fn run(script: Script) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let count = dir.path().join("calls");
    let mut cases = String::new();
    for (i, (out, err, code)) in script.runs.iter().enumerate() {
        cases.push_str(&format!(
            "  {n}) printf '%s\\n' '{out}'; printf '%s\\n' '{err}' >&2; exit {code} ;;\n",
            n = i + 1
        ));
    }
    let wine = format!(
        "#!/usr/bin/env bash\n\
         n=$(( $(cat '{count}' 2>/dev/null || echo 0) + 1 )); echo $n > '{count}'\n\
         [ \"$1\" = prog.exe ] && [ \"$2\" = --flag ] || {{ echo bad args: \"$@\"; exit 99; }}\n\
         case $n in\n{cases}  *) echo 'test result: ok. 3 passed'; exit 0 ;;\nesac\n",
        count = count.display()
    );
    let path = bin.join("wine");
    std::fs::write(&path, wine).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/windows/wine-runner.sh");
    let out = Command::new("bash")
        .arg(runner)
        .args(["prog.exe", "--flag"])
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("TMPDIR", dir.path())
        .output()
        .unwrap();
    let calls = std::fs::read_to_string(&count)
        .map(|s| s.trim().parse().unwrap())
        .unwrap_or(0);
    // The runner leaves no log file behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("gk-wine-runner"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    Outcome {
        run: Run::from(out),
        calls,
    }
}

#[test]
fn a_passing_test_program_runs_once() {
    let o = run(Script { runs: &[] });
    assert_eq!((o.run.code, o.calls), (Some(0), 1));
    assert!(
        o.run.stdout_text().contains("test result: ok. 3 passed"),
        "{}",
        o.run.stdout_text()
    );
    assert!(o.run.stderr_text().is_empty(), "{}", o.run.stderr_text());
}

#[test]
fn a_lost_wineserver_connection_runs_the_program_once_more() {
    let o = run(Script {
        runs: &[(
            "",
            "wine client error:0: recvmsg: Connection reset by peer",
            1,
        )],
    });
    assert_eq!(
        (o.run.code, o.calls),
        (Some(0), 2),
        "{}{}",
        o.run.stdout_text(),
        o.run.stderr_text()
    );
    assert!(
        o.run.stderr_text()
            .contains("wine-runner: prog.exe failed (exit 1) because Wine could not start or keep a process; running it again (1 of 2)"),
        "{}",
        o.run.stderr_text()
    );
    // Both runs' lines are in the log.
    assert!(
        o.run.stdout_text().contains("wine client error:0"),
        "{}",
        o.run.stdout_text()
    );
    assert!(
        o.run.stdout_text().contains("test result: ok. 3 passed"),
        "{}",
        o.run.stdout_text()
    );
}

#[test]
fn a_program_that_wine_could_not_start_runs_the_test_program_once_more() {
    for line in [
        "called `Result::unwrap()` on an `Err` value: Os { code: 1359, kind: Uncategorized, message: \"Internal error.\" }",
        "gk: cannot run C:\\x\\gk.exe: Internal error. (os error 1359)",
    ] {
        let o = run(Script {
            runs: &[(line, "", 101)],
        });
        assert_eq!((o.run.code, o.calls), (Some(0), 2), "{line}: {}{}", o.run.stdout_text(), o.run.stderr_text());
    }
}

#[test]
fn a_failing_test_is_never_run_again() {
    for (out, code) in [
        (
            "test a ... FAILED\ntest result: FAILED. 2 passed; 1 failed",
            101,
        ),
        // Near misses of the two signs.
        ("error code: 13590, wine client", 101),
        ("Os { code: 5, kind: PermissionDenied }", 101),
        ("", 1),
    ] {
        let o = run(Script {
            runs: &[(out, "", code)],
        });
        assert_eq!(
            (o.run.code, o.calls),
            (Some(code), 1),
            "{out}: {}",
            o.run.stderr_text()
        );
        assert!(
            !o.run.stderr_text().contains("wine-runner"),
            "{}",
            o.run.stderr_text()
        );
    }
}

#[test]
fn a_third_wine_failure_fails_the_run() {
    let lost = (
        "",
        "wine client error:0: recvmsg: Connection reset by peer",
        1,
    );
    let o = run(Script {
        runs: &[lost, lost],
    });
    assert_eq!(
        (o.run.code, o.calls),
        (Some(0), 3),
        "{}",
        o.run.stderr_text()
    );
    assert!(
        o.run.stderr_text().contains("running it again (2 of 2)"),
        "{}",
        o.run.stderr_text()
    );
    let o = run(Script {
        runs: &[lost, lost, lost],
    });
    assert_eq!((o.run.code, o.calls), (Some(1), 3));
    assert!(
        o.run
            .stderr_text()
            .contains("wine-runner: prog.exe failed a third time (exit 1)"),
        "{}",
        o.run.stderr_text()
    );
}

#[test]
fn a_test_that_fails_again_on_the_repeat_fails_the_run() {
    // The first run failed a test *and* lost its server: the repeat decides,
    // and a test that fails again fails the run.
    let o = run(Script {
        runs: &[
            (
                "test a ... FAILED",
                "wine client error:0: recvmsg: Connection reset by peer",
                101,
            ),
            ("test a ... FAILED", "", 101),
        ],
    });
    assert_eq!((o.run.code, o.calls), (Some(101), 2));
}
