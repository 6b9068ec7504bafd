//! scripts/windows-manifests.py: the Scoop and winget manifests of a
//! release, written from its archives and their checksum files. Here the
//! archives are stand-ins (random bytes with the release's names); the
//! manifests must carry exactly their checksums and the release's
//! addresses, pass the script's own offline check, and a checksum that
//! does not match its archive must write nothing.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)] // runs python3

use std::path::Path;
use std::process::Command;

const ARCHIVES: [&str; 2] = [
    "gk-x86_64-pc-windows-msvc.zip",
    "gk-aarch64-pc-windows-msvc.zip",
];

/// Python 3 by the name each platform's installs give it.
const PYTHON: &str = if cfg!(windows) { "python" } else { "python3" };

fn script(args: &[&str]) -> std::process::Output {
    Command::new(PYTHON)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/windows-manifests.py"))
        .args(args)
        .output()
        .expect("python3 runs (the e2e mock needs it too)")
}

/// Version 1.2.3 of example-owner/gk, from the archives in `rel`, into `out`.
fn generate(rel: &Path, out: &Path) -> std::process::Output {
    script(&[
        "--version",
        "1.2.3",
        "--archives",
        rel.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--repository",
        "https://github.com/example-owner/gk",
    ])
}

/// A release folder: each archive and its `.sha256` as dist writes it.
fn release(dir: &Path) -> Vec<String> {
    let mut sums = Vec::new();
    for (i, name) in ARCHIVES.iter().enumerate() {
        let bytes: Vec<u8> = (0..4096u32)
            .map(|b| (b * 31 + i as u32 * 7) as u8)
            .collect();
        std::fs::write(dir.join(name), &bytes).unwrap();
        let sum = sha256_hex(&bytes);
        std::fs::write(
            dir.join(format!("{name}.sha256")),
            format!("{sum} *{name}\n"),
        )
        .unwrap();
        sums.push(sum);
    }
    sums
}

/// SHA-256 through Python (no hashing crate in the dev-dependencies).
fn sha256_hex(bytes: &[u8]) -> String {
    let tmp = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(tmp.path(), bytes).unwrap();
    let out = Command::new(PYTHON)
        .args([
            "-c",
            "import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
        ])
        .arg(tmp.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the script runs with the Linux python3, which a Windows test cannot start"
)]
fn manifests_carry_the_release_checksums_and_addresses_and_pass_the_check() {
    let tmp = tempfile::tempdir().unwrap();
    let (rel, out) = (tmp.path().join("rel"), tmp.path().join("out"));
    std::fs::create_dir(&rel).unwrap();
    let sums = release(&rel);
    let run = generate(&rel, &out);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let scoop: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scoop/gk.json")).unwrap()).unwrap();
    assert_eq!(scoop["version"], "1.2.3");
    assert_eq!(scoop["bin"], "gk.exe");
    assert_eq!(scoop["architecture"]["64bit"]["hash"], sums[0]);
    assert_eq!(scoop["architecture"]["arm64"]["hash"], sums[1]);
    assert_eq!(
        scoop["architecture"]["64bit"]["url"],
        "https://github.com/example-owner/gk/releases/download/v1.2.3/gk-x86_64-pc-windows-msvc.zip"
    );
    let winget = out.join("winget/manifests/e/example-owner/gk/1.2.3");
    let installer =
        std::fs::read_to_string(winget.join("example-owner.gk.installer.yaml")).unwrap();
    for sum in &sums {
        assert!(installer.contains(&sum.to_uppercase()), "{installer}");
    }
    assert!(
        installer.contains("PortableCommandAlias: gk"),
        "{installer}"
    );
    assert!(winget.join("example-owner.gk.yaml").is_file());
    assert!(winget.join("example-owner.gk.locale.en-US.yaml").is_file());
    let check = script(&["--check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // A manifest changed by hand no longer passes.
    std::fs::write(
        winget.join("example-owner.gk.installer.yaml"),
        installer.replace(&sums[1].to_uppercase(), "0"),
    )
    .unwrap();
    let check = script(&["--check", out.to_str().unwrap()]);
    assert!(!check.status.success());
    assert!(String::from_utf8_lossy(&check.stdout).contains("InstallerSha256"));
}

#[test]
#[cfg_attr(
    gk_wine,
    ignore = "Wine gap: the script runs with the Linux python3, which a Windows test cannot start"
)]
fn an_archive_that_does_not_match_its_checksum_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (rel, out) = (tmp.path().join("rel"), tmp.path().join("out"));
    std::fs::create_dir(&rel).unwrap();
    release(&rel);
    std::fs::write(rel.join(ARCHIVES[1]), b"not what was released").unwrap();
    let run = generate(&rel, &out);
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("does not match its checksum"));
    assert!(!out.exists());
}
