//! A web page as a model reads it: the text a person would see, a line per
//! block, without scripts, styles or anything else that is not shown; the
//! title; and the date the page says it was published. HTML parsers take
//! time quadratic in how deep elements nest, so a page nested deeper than
//! [`MAX_DEPTH`] (no real page is) is refused before it is parsed; the
//! walk is a loop, not a recursion.

use ego_tree::iter::Edge;
use scraper::{Html, Node, Selector};

/// What a page says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Extracted {
    pub(crate) title: String,
    /// `YYYY-MM-DD` when the page gives a date, else empty.
    pub(crate) published_at: String,
    pub(crate) text: String,
}

/// Elements whose content is never shown as text.
const HIDDEN: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas",
    "select", "button",
];

/// Elements that start and end a line of text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

/// Where pages put their publication date, most specific first.
const DATE_SOURCES: &[(&str, &str)] = &[
    ("meta[property='article:published_time']", "content"),
    ("meta[name='article:published_time']", "content"),
    ("meta[itemprop='datePublished']", "content"),
    ("meta[name='date']", "content"),
    ("meta[name='dc.date']", "content"),
    ("meta[name='publish-date']", "content"),
    ("time[datetime]", "datetime"),
];

/// The deepest nesting parsed. Browsers stop building the tree deeper
/// than a few hundred levels; real pages stay far below.
pub(crate) const MAX_DEPTH: usize = 1000;

/// A page nested deeper than [`MAX_DEPTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooDeep;

pub(crate) fn extract(html: &str) -> Result<Extracted, TooDeep> {
    if nesting(html) > MAX_DEPTH {
        return Err(TooDeep);
    }
    let document = Html::parse_document(html);
    Ok(Extracted {
        title: title(&document),
        published_at: published_at(&document),
        text: visible_text(&document),
    })
}

/// Elements that never hold others, or whose end tag may be left out:
/// they do not count toward the nesting.
const UNNESTED: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rb", "rt",
    "rp", "tbody", "thead", "tfoot", "colgroup", "caption", "html", "head", "body", "!doctype",
];

/// How deep the page's elements nest, counted from its tags in one pass
/// (an upper bound: a tag left open counts as still open).
fn nesting(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        i += offset + 1;
        let closing = bytes.get(i) == Some(&b'/');
        let start = if closing { i + 1 } else { i };
        // A tag name starts with a letter (`<3` is text).
        if !bytes
            .get(start)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'!')
        {
            continue;
        }
        let length = bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'!')
            .count();
        if length == 0 {
            continue;
        }
        let name = html[start..start + length].to_ascii_lowercase();
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'>')
            .map(|e| start + e);
        if closing {
            if !UNNESTED.contains(&name.as_str()) {
                depth = depth.saturating_sub(1);
            }
        } else if !UNNESTED.contains(&name.as_str()) && end.is_some_and(|e| bytes[e - 1] != b'/') {
            depth += 1;
            deepest = deepest.max(depth);
            // Script and style hold text, not tags.
            if let ("script" | "style", Some(e)) = (name.as_str(), end) {
                i = find_closing(bytes, e, name.as_bytes()).unwrap_or(bytes.len());
                continue;
            }
        }
        i = end.map_or(bytes.len(), |e| e + 1);
    }
    deepest
}

/// Where `</name` (in any case) next starts at or after `from`.
fn find_closing(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(offset) = bytes[at..].windows(2).position(|w| w == b"</") {
        let start = at + offset;
        let tag = &bytes[start + 2..];
        if tag.len() >= name.len() && tag[..name.len()].eq_ignore_ascii_case(name) {
            return Some(start);
        }
        at = start + 2;
    }
    None
}

/// The `<title>`, else the first `<h1>`, on one line.
fn title(document: &Html) -> String {
    for selector in ["head title", "title", "h1"] {
        let Ok(selector) = Selector::parse(selector) else {
            continue;
        };
        if let Some(element) = document.select(&selector).next() {
            let text = one_line(&element.text().collect::<String>());
            if !text.is_empty() {
                return text;
            }
        }
    }
    String::new()
}

fn published_at(document: &Html) -> String {
    for (selector, attribute) in DATE_SOURCES {
        let Ok(selector) = Selector::parse(selector) else {
            continue;
        };
        for element in document.select(&selector) {
            if let Some(date) = element.attr(attribute).and_then(iso_date) {
                return date;
            }
        }
    }
    String::new()
}

/// The `YYYY-MM-DD` a date-time starts with, when it starts with one.
pub(crate) fn iso_date(text: &str) -> Option<String> {
    let date = text.trim().get(..10)?;
    jiff::civil::Date::strptime("%Y-%m-%d", date).ok()?;
    Some(date.to_string())
}

fn visible_text(document: &Html) -> String {
    let mut raw = String::new();
    let mut hidden_depth = 0usize;
    for edge in document.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(element) => {
                    let name = element.name();
                    if hidden_depth > 0 || HIDDEN.contains(&name) {
                        hidden_depth += 1;
                    } else if BLOCKS.contains(&name) {
                        raw.push('\n');
                    }
                }
                Node::Text(text) if hidden_depth == 0 => raw.push_str(text),
                _ => {}
            },
            Edge::Close(node) => {
                if let Node::Element(element) = node.value() {
                    if hidden_depth > 0 {
                        hidden_depth -= 1;
                    } else if BLOCKS.contains(&element.name()) {
                        raw.push('\n');
                    }
                }
            }
        }
    }
    raw.split('\n')
        .map(one_line)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whitespace runs as single spaces, and no control characters.
fn one_line(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    crate::sanitize::clean(&words.join(" ")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_styles_and_the_head_are_not_text() {
        let page = extract(
            "<!doctype html><html><head><title> Card\n declines </title>\
             <style>p { color: red }</style><script>var secret = 1;</script></head>\
             <body><script>track()</script><noscript>enable js</noscript>\
             <h1>Declines</h1><p>Rates rose to <b>4.1%</b> &amp; fell.</p>\
             <ul><li>one</li><li>two</li></ul><div>a<br>b</div>\
             <svg><title>icon</title><text>svg text</text></svg></body></html>",
        )
        .unwrap();
        assert_eq!(page.title, "Card declines");
        assert_eq!(
            page.text,
            "Declines\nRates rose to 4.1% & fell.\none\ntwo\na\nb"
        );
    }

    #[test]
    fn the_date_comes_from_the_page_metadata() {
        let date = |head: &str| {
            extract(&format!("<html><head>{head}</head><body></body></html>")).unwrap()
        };
        assert_eq!(
            date("<meta property='article:published_time' content='2026-03-05T09:00:00Z'>")
                .published_at,
            "2026-03-05"
        );
        assert_eq!(
            date("<meta name='date' content='soon'><meta name='dc.date' content='2025-12-01'>")
                .published_at,
            "2025-12-01"
        );
        assert_eq!(
            date("<meta name='date' content='2026-13-40'>").published_at,
            ""
        );
        assert_eq!(
            extract("<p>Posted <time datetime='2026-02-20'>Feb 20</time></p>")
                .unwrap()
                .published_at,
            "2026-02-20"
        );
    }

    #[test]
    fn a_page_without_title_takes_its_heading_and_control_characters_go() {
        let page = extract("<h1>Status\u{1b}[2J page</h1><p>all\u{7} fine</p>").unwrap();
        assert_eq!(page.title, "Status page");
        assert_eq!(page.text, "Status page\nall fine");
    }

    #[test]
    fn pages_nested_past_the_limit_are_refused_before_parsing() {
        let nested =
            |depth: usize| format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        assert_eq!(extract(&nested(MAX_DEPTH)).unwrap().text, "deep");
        assert_eq!(extract(&nested(MAX_DEPTH + 1)), Err(TooDeep));
        assert_eq!(extract(&"<b>".repeat(200_000)), Err(TooDeep));
        // Tags that close themselves, or may be left open, do not nest.
        let flat = "<p>para<br><img src=x><li>item<input/>".repeat(50_000);
        assert_eq!(nesting(&flat), 0);
        assert_eq!(nesting("<div><span>a</span><div>b</div></div>"), 2);
        assert_eq!(nesting("<script>'<div><div><div>'</script><div>x</div>"), 1);
        assert_eq!(nesting("a < b <3 </ >"), 0);
    }
}
