//! A unified diff as the console colours it: each line with its kind (added, removed, a
//! hunk's header, the files' header, or context), for a class of the stylesheet.

/// One line of a unified diff.
pub(super) struct DiffLine {
    /// `add`, `del`, `hunk`, `file` or `context`: the line's class is `diff-<kind>`.
    pub kind: &'static str,
    /// The line as the diff has it.
    pub text: String,
}

/// The lines of the unified diff `diff`, each with its kind.
pub(super) fn diff_lines(diff: &str) -> Vec<DiffLine> {
    diff.lines()
        .map(|line| DiffLine {
            kind: if line.starts_with("+++") || line.starts_with("---") {
                "file"
            } else if line.starts_with("@@") {
                "hunk"
            } else if line.starts_with('+') {
                "add"
            } else if line.starts_with('-') {
                "del"
            } else {
                "context"
            },
            text: line.to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_has_its_kind() {
        let diff = "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 1";
        let kinds: Vec<&str> = diff_lines(diff).iter().map(|line| line.kind).collect();
        assert_eq!(kinds, ["file", "file", "hunk", "del", "add", "context"]);
        assert_eq!(diff_lines(diff)[4].text, "+x = 2");
    }
}
