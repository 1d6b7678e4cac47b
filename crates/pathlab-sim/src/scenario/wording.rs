//! serde's messages in the user's terms: no Rust type names (`expected u32`) in an error.

/// The range a Rust integer type stands for, as a scenario's author would say it.
fn integer_range(rust_type: &str) -> Option<&'static str> {
    Some(match rust_type {
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" => "a whole number from 0 to 4294967295",
        "u64" => "a whole number from 0 to 18446744073709551615",
        "i64" => "a whole number",
        "f64" => "a number",
        _ => return None,
    })
}

/// Rewrites `invalid value: integer `-1`, expected u32` and `invalid type: string "x", expected
/// u64` as `-1 is out of range: expected a whole number from 0 to 4294967295` and `"x" is not
/// a number: expected ...`; anything else is returned unchanged.
pub fn plain(message: &str) -> String {
    let Some((head, rust_type)) = message.rsplit_once(", expected ") else {
        return message.to_string();
    };
    if rust_type.starts_with("internally tagged enum") {
        let got = head.strip_prefix("invalid type: ").unwrap_or(head);
        return format!(
            "{got}: expected a table naming the policy, like {{ name = \"VMW_PSP_RR\" }} (see `pathlab policies`)"
        );
    }
    let Some(range) = integer_range(rust_type.trim()) else {
        return message.to_string();
    };
    let quoted = |s: &str| s.split('`').nth(1).map(str::to_string);
    if let Some(rest) = head.strip_prefix("invalid value: integer ") {
        let value = quoted(rest).unwrap_or_else(|| rest.to_string());
        return format!("{value} is out of range: expected {range}");
    }
    if let Some(rest) = head.strip_prefix("invalid type: ") {
        let what = match rest.split_once(' ') {
            Some(("floating", r)) => quoted(r).map_or("a fraction".to_string(), |v| format!("{v} is not whole")),
            Some(("string", v)) => format!("{v} is text"),
            _ => rest.to_string(),
        };
        return format!("{what}: expected {range}");
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn rust_type_names_become_ranges() {
        assert_eq!(
            plain("invalid value: integer `-1`, expected u32"),
            "-1 is out of range: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain("invalid type: floating point `1.5`, expected u32"),
            "1.5 is not whole: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain("invalid type: string \"x\", expected u64"),
            "\"x\" is text: expected a whole number from 0 to 18446744073709551615"
        );
        assert_eq!(plain("missing field `name`"), "missing field `name`");
        let policy = plain("invalid type: integer `3`, expected internally tagged enum PolicyConfig");
        assert!(policy.starts_with("integer `3`: expected a table naming the policy"), "{policy}");
    }
}
