//! Parity with the Python v5 hooks: every case in
//! tests/fixtures/hooks/cases.json was run through the reference scripts by
//! scripts/gen-hook-fixtures.py, which recorded their stdout. gk must print
//! the same bytes (and so the same JSON object) and exit 0 with nothing on
//! stderr. Cases that give the state file an age set its mtime that many
//! seconds before now, right before gk runs, as the generator did.

use std::path::Path;
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use base64_free::decode_b64;
use serde_json::Value;

mod base64_free {
    /// Standard base64 (with padding), enough for the fixture's raw bytes.
    pub fn decode_b64(s: &str) -> Vec<u8> {
        let val = |c: u8| -> u32 {
            match c {
                b'A'..=b'Z' => (c - b'A') as u32,
                b'a'..=b'z' => (c - b'a' + 26) as u32,
                b'0'..=b'9' => (c - b'0' + 52) as u32,
                b'+' => 62,
                b'/' => 63,
                _ => panic!("bad base64 byte {c}"),
            }
        };
        let bytes: Vec<u8> = s.bytes().filter(|b| *b != b'=').collect();
        let mut out = Vec::new();
        for chunk in bytes.chunks(4) {
            let mut acc = 0u32;
            for (i, b) in chunk.iter().enumerate() {
                acc |= val(*b) << (18 - 6 * i);
            }
            for i in 0..chunk.len().saturating_sub(1) {
                out.push((acc >> (16 - 8 * i)) as u8);
            }
        }
        out
    }
}

fn write_state(home: &Path, state: &Value) {
    let hooks = home.join(".claude").join("hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let path = hooks.join("task_state.json");
    if state.is_null() {
        return;
    }
    if state["kind"] == "dir" {
        std::fs::create_dir(&path).unwrap();
        return;
    }
    let mut data = Vec::new();
    if state["bom"] == true {
        data.extend_from_slice(b"\xEF\xBB\xBF");
    }
    match state.get("content_b64") {
        Some(b) => data.extend(decode_b64(b.as_str().unwrap())),
        None => data.extend_from_slice(state["content"].as_str().unwrap().as_bytes()),
    }
    std::fs::write(&path, data).unwrap();
    let age = state["age_secs"].as_f64().unwrap();
    let now = SystemTime::now();
    let mtime = if age >= 0.0 {
        now - Duration::from_secs_f64(age)
    } else {
        now + Duration::from_secs_f64(-age)
    };
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(mtime).unwrap();
}

#[test]
fn gk_matches_the_python_reference_on_every_fixture() {
    let text = std::fs::read_to_string("tests/fixtures/hooks/cases.json").unwrap();
    let fixtures: Value = serde_json::from_str(&text).unwrap();
    let cases = fixtures["cases"].as_array().unwrap();
    assert!(cases.len() >= 150, "only {} parity cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let home = tempfile::tempdir().unwrap();
        write_state(home.path(), &case["state"]);
        let out = Command::cargo_bin("gk")
            .unwrap()
            .args(["hook", case["hook"].as_str().unwrap()])
            .env("HOME", home.path())
            .env("USERPROFILE", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .write_stdin(case["stdin"].as_str().unwrap())
            .output()
            .unwrap();
        let expected = case["expected_stdout"].as_str().unwrap();
        let got = String::from_utf8_lossy(&out.stdout);
        let problem = if out.status.code() != Some(0) {
            Some(format!("exit {:?}", out.status.code()))
        } else if !out.stderr.is_empty() {
            Some(format!("stderr: {}", String::from_utf8_lossy(&out.stderr)))
        } else if expected.is_empty() != got.is_empty() {
            Some(format!("expected {expected:?}\n   got {got:?}"))
        } else if !expected.is_empty() {
            let want: Value = serde_json::from_str(expected).unwrap();
            let have: Result<Value, _> = serde_json::from_str(&got);
            match have {
                Ok(have) if have != want => {
                    Some(format!("JSON differs\nexpected {expected}\n     got {got}"))
                }
                Err(e) => Some(format!("not JSON ({e}): {got:?}")),
                Ok(_) if got != expected => Some(format!(
                    "same JSON, different bytes\nexpected {expected:?}\n     got {got:?}"
                )),
                Ok(_) => None,
            }
        } else {
            None
        };
        if let Some(p) = problem {
            failures.push(format!("{name}: {p}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from the reference:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
