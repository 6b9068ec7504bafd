//! The prime directive, checked on the source: nothing under src/hooks/ may
//! name a way to spawn a process, open a network connection or write to the
//! file system, and neither may the modules outside it that the hooks run
//! (the shared reader, and what the session check reads the settings
//! files with: the registry, the command recogniser, the settings reader,
//! the paths and the platform). (clippy.toml also forbids `std::process::Command` in the
//! whole crate; this test covers what clippy does not: the network, file
//! writes, and any `std::process` use at all.)

use std::path::{Path, PathBuf};

const FORBIDDEN: &[&str] = &[
    "std::process",
    "process::Command",
    "Command::new",
    "std::net",
    "TcpStream",
    "UdpSocket",
    "fs::write",
    "File::create",
    "File::options",
    "OpenOptions",
    "create_dir",
    "remove_file",
    "remove_dir",
    "rename",
    "fs::copy",
    "hard_link",
    "symlink",
    "set_permissions",
    "set_len",
    "set_modified",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `file:line: name` for every forbidden name in `text`.
fn violations(file: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for name in FORBIDDEN {
            if line.contains(name) {
                found.push(format!("{file}:{}: {name}", n + 1));
            }
        }
    }
    found
}

/// The crate's bounded reader (`src/bounded.rs`) is on the hook path too.
/// It may build `OpenOptions` (to open without blocking), but read only:
/// none of the flags that write or create.
const READER_FORBIDDEN: &[&str] = &[
    ".write(",
    ".create(",
    ".create_new(",
    ".append(",
    ".truncate(",
];

#[test]
fn the_shared_reader_spawns_connects_and_writes_nothing() {
    let file = "src/bounded.rs";
    let whole = std::fs::read_to_string(file).unwrap();
    // Its unit tests (which make files to read) are not on the hook path.
    let text = whole.split("#[cfg(test)]\nmod tests").next().unwrap();
    assert!(text.len() < whole.len(), "{file}: tests module not found");
    let mut found: Vec<String> = violations(file, text)
        .into_iter()
        .filter(|v| !v.ends_with(": OpenOptions"))
        .collect();
    for (n, line) in text.lines().enumerate() {
        for name in READER_FORBIDDEN {
            if line.contains(name) {
                found.push(format!("{file}:{}: {name}", n + 1));
            }
        }
    }
    assert!(
        text.contains(".read(true)"),
        "{file} no longer opens read-only?"
    );
    assert!(
        found.is_empty(),
        "{file} must not name these:\n{}",
        found.join("\n")
    );
}

/// The modules outside src/hooks/ that a hook runs: `gk hook session`
/// reads the settings files through the registry model (scopes, the
/// registration table, the rules, the program look-up), which uses the
/// command recogniser and the settings reader; every hook finds its files
/// through the paths and the platform. Their unit tests (which make files
/// to read) are not on the hook path.
const HOOK_PATH_MODULES: &[&str] = &[
    "src/registry",
    "src/hookcmd.rs",
    "src/settings.rs",
    "src/paths.rs",
    "src/platform.rs",
    "src/machine.rs",
];

/// Every `.rs` file of [`HOOK_PATH_MODULES`] and its text before the tests module.
fn hook_path_sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for m in HOOK_PATH_MODULES {
        let p = Path::new(m);
        if p.is_dir() {
            rust_files(p, &mut files);
        } else {
            files.push(p.to_path_buf());
        }
    }
    // A `tests.rs` is a whole module of unit tests (`mod tests;`).
    files.retain(|f| f.file_name().is_none_or(|n| n != "tests.rs"));
    files.sort();
    files
        .iter()
        .map(|f| {
            let whole = std::fs::read_to_string(f).unwrap();
            let code = whole.split("#[cfg(test)]\nmod tests").next().unwrap();
            (f.display().to_string(), code.to_string())
        })
        .collect()
}

#[test]
fn the_modules_the_hooks_reach_spawn_connect_and_write_nothing() {
    let sources = hook_path_sources();
    assert!(
        sources.iter().any(|(f, _)| f.ends_with("scopes.rs"))
            && sources.iter().any(|(f, _)| f.ends_with("hookcmd.rs")),
        "{:?}",
        sources.iter().map(|(f, _)| f).collect::<Vec<_>>()
    );
    let found: Vec<String> = sources
        .iter()
        .flat_map(|(f, text)| violations(f, text))
        .collect();
    assert!(
        found.is_empty(),
        "the hook path must not name these:\n{}",
        found.join("\n")
    );
}

/// The one folder the hook path lists is the managed settings' drop-in
/// folder, which the client reads too (the session check must see what
/// the client loads); the state folder is never listed (above).
#[test]
fn the_hook_path_lists_only_the_managed_drop_in_folder() {
    let listing: Vec<String> = hook_path_sources()
        .iter()
        .flat_map(|(f, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains("read_dir") || l.contains("glob("))
                .map(|(n, l)| format!("{f}:{}: {}", n + 1, l.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(listing.len(), 1, "{listing:#?}");
    // The file's name as this platform spells it (`src/registry\scopes.rs`
    // on Windows).
    let scopes = Path::new("src/registry").join("scopes.rs");
    assert!(
        listing[0].starts_with(&format!("{}:", scopes.display())),
        "{listing:?}"
    );
}

#[test]
fn the_scan_catches_what_it_should() {
    let sample = "use std::process::Command;\nlet _ = std::fs::write(p, b);\nlet s = std::net::TcpStream::connect(a);\nfs::rename(a, b);";
    let v = violations("x.rs", sample);
    for want in [
        "x.rs:1: std::process",
        "x.rs:2: fs::write",
        "x.rs:3: std::net",
        "x.rs:4: rename",
    ] {
        assert!(v.iter().any(|f| f == want), "missed {want}: {v:?}");
    }
    assert!(violations("x.rs", "std::fs::read(p); File::open(p);").is_empty());
    // Only string literals are taken out of the data file: a call is not.
    let data = without_string_literals(
        "static W: &[&str] = &[\"rename\", \"a\\\"b\"];\nfs::rename(a, b);",
    );
    assert_eq!(violations("w.rs", &data), ["w.rs:2: rename"]);
}

/// `text` with the contents of its string literals taken out (`"..."`
/// becomes `""`; a backslash escapes the next character).
fn without_string_literals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
                out.push(c);
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

#[test]
fn nothing_under_src_hooks_spawns_connects_or_writes() {
    let mut files = Vec::new();
    rust_files(Path::new("src/hooks"), &mut files);
    assert!(files.len() >= 5, "src/hooks looks empty: {files:?}");
    let mut all = Vec::new();
    for f in &files {
        let mut text = std::fs::read_to_string(f).unwrap();
        // The recommender's generated weights: numbers and the feature
        // word lists, whose strings are words of prompts (the verb
        // "rename" among them), never a call. Its code is scanned; its
        // string literals are not, and it may hold no function at all.
        if f.file_name().is_some_and(|n| n == "advice_weights.rs") {
            text = without_string_literals(&text);
            assert!(
                !text.contains("fn "),
                "{}: code in a data file",
                f.display()
            );
        }
        all.extend(violations(&f.display().to_string(), &text));
    }
    assert!(
        all.is_empty(),
        "src/hooks must not name these:\n{}",
        all.join("\n")
    );
}

/// The hooks read one task record by name, never a listing of the state
/// folder: thousands of records must cost a hook nothing.
#[test]
fn nothing_under_src_hooks_lists_a_folder() {
    let mut files = Vec::new();
    rust_files(Path::new("src/hooks"), &mut files);
    let listing: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains("read_dir") || l.contains("glob("))
                .map(|(n, _)| format!("{}:{}", f.display(), n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(listing.is_empty(), "src/hooks lists a folder: {listing:?}");
}

/// `gk report` holds to the same rule as the hooks: its counting
/// (src/report/) and its command (src/commands/report.rs) name no way to
/// spawn, connect or write a file (its one output is stdout; see also the
/// strace check in tests/it/report.rs).
#[test]
fn the_report_spawns_connects_and_writes_nothing() {
    let mut files = Vec::new();
    rust_files(Path::new("src/report"), &mut files);
    files.push(PathBuf::from("src/commands/report.rs"));
    assert!(files.len() >= 5, "{files:?}");
    let mut all = Vec::new();
    for f in &files {
        let whole = std::fs::read_to_string(f).unwrap();
        let code = whole.split("#[cfg(test)]\nmod tests").next().unwrap();
        // serde's field renames are names, not file renames; a link is
        // looked at (to be refused), never made.
        let code: Vec<String> = code
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("#[serde(rename") {
                    String::new()
                } else {
                    l.replace("is_symlink()", "")
                        .replace("symlink_metadata(", "")
                }
            })
            .collect();
        all.extend(violations(&f.display().to_string(), &code.join("\n")));
    }
    assert!(
        all.is_empty(),
        "the report must not name these:\n{}",
        all.join("\n")
    );
}
