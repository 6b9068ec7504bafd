//! The settings shapes (tests/fixtures/settings-shapes/*.json) and the
//! pinned client's recorded verdict on each (verdicts.tsv beside them):
//! read by the unit test of gk's verdict (tests/it/settings_shapes.rs, no
//! client needed) and by the end-to-end test that asks the client again
//! (tests/e2e_claude.rs), which also writes verdicts.tsv when
//! `GK_RECORD_SHAPES=1` (scripts/measure-settings-shapes.sh).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The folder of the shapes.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/settings-shapes")
}

pub const RECORDED: &str = "verdicts.tsv";

/// Every shape: its name (the file name without `.json`) and bytes, by name.
pub fn fixtures() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir())
        .expect("read the shapes folder")
        .map(|e| e.expect("a shapes folder entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read a shape"))
        })
        .collect();
    out.sort();
    out
}

/// One verdict: `loads`, `drops` or `skips`, and the places the client
/// named (`hooks.Stop.0.hooks.0.type`), in its order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub verdict: String,
    pub places: Vec<String>,
}

/// The recorded verdicts, by shape name, and the client version line.
pub fn recorded() -> (String, BTreeMap<String, Verdict>) {
    let text = std::fs::read_to_string(dir().join(RECORDED)).expect("read verdicts.tsv");
    let mut version = String::new();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("# client ") {
            version = v.trim().to_string();
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut cols = line.split('\t');
        let name = cols.next().unwrap_or_default().to_string();
        let verdict = cols.next().unwrap_or_default().to_string();
        let places = cols
            .next()
            .unwrap_or_default()
            .split(' ')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        out.insert(name, Verdict { verdict, places });
    }
    (version, out)
}

/// [`recorded`], or nothing when `recording` (the file is being written).
pub fn recorded_or_empty(recording: bool) -> (String, BTreeMap<String, Verdict>) {
    if recording {
        (String::new(), BTreeMap::new())
    } else {
        recorded()
    }
}

/// The recorded file's text for `verdicts` (what the recorder writes).
pub fn render(version: &str, verdicts: &BTreeMap<String, Verdict>) -> String {
    let mut out = format!(
        "# The pinned client's verdict on each settings shape in this folder, as its\n\
         # `claude -p --output-format text` reports it: loads, drops (entries \"were\n\
         # skipped\") or skips (the file \"did not load\"), then the places it named.\n\
         # Written by scripts/measure-settings-shapes.sh; do not edit by hand.\n\
         # client {version}\n"
    );
    for (name, v) in verdicts {
        out.push_str(&format!("{name}\t{}\t{}\n", v.verdict, v.places.join(" ")));
    }
    out
}

/// The client's verdict on the settings file at `path`, from the stderr of
/// a `claude -p --output-format text` run: the line naming the file under
/// "These settings did not load" (skips) or "These settings entries were
/// skipped" (drops), with the place in parentheses after the path.
pub fn from_client(stderr: &str, path: &Path) -> Verdict {
    let path = path.to_string_lossy();
    let mut section = "";
    let mut verdict = "loads";
    let mut places = Vec::new();
    for line in stderr.lines() {
        if line.contains("did not load") {
            section = "skips";
            continue;
        }
        if line.contains("were skipped") {
            section = "drops";
            continue;
        }
        let Some(rest) = line.trim_start().strip_prefix(path.as_ref()) else {
            continue;
        };
        if section.is_empty() {
            continue;
        }
        if verdict != "skips" {
            verdict = section;
        }
        if let Some(place) = rest
            .strip_prefix(" (")
            .and_then(|r| r.split_once("): "))
            .map(|(p, _)| p)
        {
            places.push(place.to_string());
        }
    }
    Verdict {
        verdict: verdict.to_string(),
        places,
    }
}

/// Does gk's verdict (`gk::testing::verdict::of`) agree with the client's?
/// The same verdict, and for a dropped or skipped part every place gk names
/// is one the client named (one may stop at the entry where the other
/// names its field: `hooks.Stop.0` and `hooks.Stop.0.matcher`).
pub fn agrees(gk: &(&str, Vec<String>), client: &Verdict) -> Result<(), String> {
    if gk.0 != client.verdict {
        return Err(format!(
            "gk: {} {:?}; client: {} {:?}",
            gk.0, gk.1, client.verdict, client.places
        ));
    }
    let near = |a: &str, b: &str| {
        a == b || a.starts_with(&format!("{b}.")) || b.starts_with(&format!("{a}."))
    };
    for place in &gk.1 {
        if !client.places.iter().any(|c| near(place, c)) {
            return Err(format!(
                "gk names {place}, the client {:?} ({})",
                client.places, client.verdict
            ));
        }
    }
    if gk.1.is_empty() != client.places.is_empty() {
        return Err(format!(
            "gk names {:?}, the client {:?} ({})",
            gk.1, client.places, client.verdict
        ));
    }
    Ok(())
}
