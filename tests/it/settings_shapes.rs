//! gk's verdict on every settings shape (tests/fixtures/settings-shapes/)
//! against the pinned client's, as recorded in verdicts.tsv: runs without
//! the client. tests/e2e_claude.rs asks the client itself again.

#[path = "../e2e/shapes.rs"]
mod shapes;

#[test]
fn gk_judges_every_shape_as_the_recorded_client_did() {
    let (version, recorded) = shapes::recorded();
    let pinned = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/claude-version"),
    )
    .unwrap();
    assert_eq!(
        version,
        pinned.trim(),
        "verdicts.tsv was measured on another client: run scripts/measure-settings-shapes.sh"
    );
    let fixtures = shapes::fixtures();
    assert!(fixtures.len() >= 40, "{} shapes", fixtures.len());
    let mut wrong = Vec::new();
    for (name, bytes) in &fixtures {
        let Some(client) = recorded.get(name) else {
            wrong.push(format!(
                "{name}: no recorded verdict (run scripts/measure-settings-shapes.sh)"
            ));
            continue;
        };
        let text = String::from_utf8(bytes.clone()).expect("shapes are UTF-8");
        let gk = gk::testing::verdict::of(&text);
        if let Err(e) = shapes::agrees(&gk, client) {
            wrong.push(format!("{name}: {e}"));
        }
    }
    assert_eq!(
        recorded.len(),
        fixtures.len(),
        "a recorded verdict has no shape"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_verdict_is_among_the_recorded_ones() {
    // The set covers each of the client's three answers, so a verdict
    // function that always says one of them fails the test above.
    let (_, recorded) = shapes::recorded();
    for v in ["loads", "drops", "skips"] {
        assert!(
            recorded.values().filter(|r| r.verdict == v).count() >= 5,
            "fewer than five shapes the client {v}"
        );
    }
}
