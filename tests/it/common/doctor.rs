//! Reading `gk doctor --json`: the findings of a code.

use serde_json::Value;

/// The findings with `code` in a `--json` report.
pub fn doc_findings<'d>(doc: &'d Value, code: &str) -> Vec<&'d Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// The first finding with `code` (panics with the report when there is none).
pub fn finding<'d>(doc: &'d Value, code: &str) -> &'d Value {
    doc_findings(doc, code)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no {code} in {doc}"))
}

/// Every finding's code, in the report's order.
pub fn all_codes(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}
