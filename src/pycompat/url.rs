//! Python 3.11's `urllib.parse.urlparse`, the three parts the research
//! reference reads: scheme, netloc and path (query, fragment and `;params`
//! are split off and dropped). Where Python raises `ValueError` instead,
//! [`url_refusal`] says so, so that scenarios never hold such URLs.

/// The schemes whose last path segment may carry `;params` (Python's
/// `uses_params`; the empty scheme is one of them).
const USES_PARAMS: [&str; 16] = [
    "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtsps", "rtspu",
    "sip", "sips", "mms", "sftp", "tel",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParsedUrl {
    /// Lower-cased, as `urlsplit` leaves it; empty when the URL has none.
    pub(crate) scheme: String,
    /// Everything between `//` and the next `/`, `?` or `#`, as written.
    pub(crate) netloc: String,
    pub(crate) path: String,
}

fn is_scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

/// `urlparse(url)`: leading C0 controls and spaces dropped, tabs and line
/// breaks removed anywhere, then scheme, netloc, fragment, query and
/// params split off in Python's order.
pub(crate) fn urlparse(url: &str) -> ParsedUrl {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut rest = cleaned.as_str();
    let mut scheme = String::new();
    if let Some(colon) = rest.find(':') {
        let head = &rest[..colon];
        if head.starts_with(|c: char| c.is_ascii_alphabetic()) && head.chars().all(is_scheme_char) {
            scheme = head.to_ascii_lowercase();
            rest = &rest[colon + 1..];
        }
    }
    let mut netloc = "";
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(&['/', '?', '#'][..]).unwrap_or(after.len());
        netloc = &after[..end];
        rest = &after[end..];
    }
    if let Some(hash) = rest.find('#') {
        rest = &rest[..hash];
    }
    if let Some(question) = rest.find('?') {
        rest = &rest[..question];
    }
    let path = if USES_PARAMS.contains(&scheme.as_str()) {
        without_params(rest)
    } else {
        rest
    };
    ParsedUrl {
        scheme,
        netloc: netloc.to_string(),
        path: path.to_string(),
    }
}

/// Python's `_splitparams`: the path up to a `;` in its last segment.
fn without_params(path: &str) -> &str {
    let from = path.rfind('/').unwrap_or(0);
    match path[from..].find(';') {
        Some(semicolon) => &path[..from + semicolon],
        None => path,
    }
}

/// Why Python's `urlparse` would raise on `url`, if it might: a bracket in
/// the netloc (Python checks it as an IPv6 literal) or a non-ASCII netloc
/// (Python checks its NFKC form). Conservative: it refuses some netlocs
/// Python accepts, never one Python refuses.
pub(crate) fn url_refusal(url: &str) -> Option<&'static str> {
    let netloc = urlparse(url).netloc;
    if netloc.contains(['[', ']']) {
        Some("a host in brackets (IPv6 literals are not supported)")
    } else if !netloc.is_ascii() {
        Some("a host with non-ASCII characters (write it in punycode, xn--…)")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (String, String, String) {
        let p = urlparse(url);
        (p.scheme, p.netloc, p.path)
    }

    #[test]
    fn splits_like_python() {
        // (url, scheme, netloc, path) as CPython 3.11's urlparse gives them.
        let table = [
            ("https://h/a;p?q#f", "https", "h", "/a"),
            ("https://h/a;p/b;q", "https", "h", "/a;p/b"),
            (
                "HTTPS://Vendor.Example.COM/P/",
                "https",
                "Vendor.Example.COM",
                "/P/",
            ),
            ("official.example.com/x", "", "", "official.example.com/x"),
            ("//host/a?b#c", "", "host", "/a"),
            ("host:8080/a", "host", "", "8080/a"),
            ("mailto:x@y", "mailto", "", "x@y"),
            ("x:/a;b", "x", "", "/a;b"),
            ("\u{0}\u{5} https://h/a", "https", "h", "/a"),
            ("https://h\t/a\nb", "https", "h", "/ab"),
            ("1http://h/", "", "", "1http://h/"),
            ("h+t.p://H/x/", "h+t.p", "H", "/x/"),
            ("https://u:PW@Host:80/x", "https", "u:PW@Host:80", "/x"),
            ("https://h?x", "https", "h", ""),
            ("https:", "https", "", ""),
            ("ftp://h/a;type=i", "ftp", "h", "/a"),
            ("tel:+1;ext=2", "tel", "", "+1"),
            ("", "", "", ""),
            ("a;b", "", "", "a"),
        ];
        for (url, scheme, netloc, path) in table {
            assert_eq!(
                parts(url),
                (scheme.into(), netloc.into(), path.into()),
                "{url:?}"
            );
        }
    }

    #[test]
    fn refuses_what_python_might_raise_on() {
        assert!(url_refusal("https://[::1]/x").is_some());
        assert!(url_refusal("https://h]/x").is_some());
        assert!(url_refusal("https://bücher.example/x").is_some());
        assert_eq!(url_refusal("https://h/bücher"), None, "only the host");
        assert_eq!(url_refusal("https://vendor.example.com/a?b"), None);
    }
}
