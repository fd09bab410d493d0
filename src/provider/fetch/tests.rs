//! `fetch` against loopback servers the tests start: pages with scripts
//! and styles, a page past the size cap (declared and streamed), redirects
//! inside and outside the allowed domains, and bodies that are not HTML.

use super::*;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ARTICLE: &str = "<!doctype html><html><head><title>Card declines</title>\
    <meta property=\"article:published_time\" content=\"2026-03-05T09:00:00Z\">\
    <style>body { color: red }</style><script>var tracker = 'x';</script></head>\
    <body><script>track()</script><h1>Card declines</h1>\
    <p>Declines rose to 4.1% &amp; recovered.</p></body></html>";

async fn serve(route: &str, response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    mount(&server, route, response).await;
    server
}

async fn mount(server: &MockServer, route: &str, response: ResponseTemplate) {
    Mock::given(method("GET"))
        .and(path(route))
        .respond_with(response)
        .mount(server)
        .await;
}

fn domain_of(server: &MockServer) -> String {
    url_domain(&server.uri())
}

fn fetcher() -> Fetcher {
    Fetcher::new(http::DEFAULT_MAX_BODY_BYTES).unwrap()
}

#[tokio::test]
async fn an_html_page_becomes_its_title_date_and_visible_text() {
    let server = serve(
        "/declines",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html; charset=utf-8"),
    )
    .await;
    let url = format!("{}/declines", server.uri());
    let page = fetcher().fetch(&url, &|_| false).await.unwrap();
    assert_eq!(page.title, "Card declines");
    assert_eq!(page.published_at, "2026-03-05");
    assert_eq!(
        page.body,
        "Card declines\nDeclines rose to 4.1% & recovered."
    );
    assert!(!page.body.contains("track") && !page.body.contains("color"));
    assert_eq!(
        page.tool_output(),
        json!({"status": "ok", "data": {"url": url, "title": "Card declines",
               "published_at": "2026-03-05",
               "body": "Card declines\nDeclines rose to 4.1% & recovered."}})
    );
}

#[tokio::test]
async fn a_page_past_the_cap_is_refused_whether_declared_or_streamed() {
    let huge = "<p>".to_string() + &"x".repeat(300 * 1024);
    let server = serve(
        "/huge",
        ResponseTemplate::new(200).set_body_raw(huge, "text/html"),
    )
    .await;
    let small = Fetcher::new(64 * 1024).unwrap();
    let error = small
        .fetch(&format!("{}/huge", server.uri()), &|_| true)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}/huge: the page is larger than 65536 bytes (raise CONCLAVE_MAX_BODY_BYTES to read larger pages)",
            server.uri()
        )
    );

    // A body with no length, sent until the reader stops taking it. The
    // kernel holds what was sent and not read: a send buffer of its own
    // size (an accepted socket takes its listener's) keeps that far under
    // the bound on machines whose buffers grow to megabytes.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_send_buffer_size(16 * 1024).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let address = listener.local_addr().unwrap();
    let streamer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 1024];
        let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut request).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        let chunk = vec![b'y'; 16 * 1024];
        let mut sent = 0usize;
        // Bounded: 4 MiB at most, far past the 64 KiB cap.
        while sent < 4 * 1024 * 1024 && socket.write_all(&chunk).await.is_ok() {
            sent += chunk.len();
        }
        sent
    });
    let error = small
        .fetch(&format!("http://{address}/endless"), &|_| true)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::TooLarge { limit: 65536, .. }),
        "{error:?}"
    );
    let sent = streamer.await.unwrap();
    assert!(sent < 4 * 1024 * 1024, "the reader stopped taking the body");
}

#[tokio::test]
async fn redirects_are_followed_only_to_allowed_domains() {
    let denied = serve(
        "/elsewhere",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html"),
    )
    .await;
    let site = serve(
        "/old",
        ResponseTemplate::new(301).insert_header("location", "/new?from=old"),
    )
    .await;
    mount(
        &site,
        "/new",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html"),
    )
    .await;
    mount(
        &site,
        "/away",
        ResponseTemplate::new(302)
            .insert_header("location", format!("{}/elsewhere", denied.uri()).as_str()),
    )
    .await;
    mount(
        &site,
        "/loop",
        ResponseTemplate::new(307).insert_header("location", "/loop"),
    )
    .await;
    let allowed_domain = domain_of(&site);
    let allowed = move |domain: &str| domain == allowed_domain;

    let old = format!("{}/old", site.uri());
    let page = fetcher().fetch(&old, &allowed).await.unwrap();
    assert_eq!(page.url, old);
    assert_eq!(page.final_url, format!("{}/new?from=old", site.uri()));
    assert_eq!(page.tool_output()["data"]["final_url"], page.final_url);

    let error = fetcher()
        .fetch(&format!("{}/away", site.uri()), &allowed)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}/away redirects to {}/elsewhere, whose domain {} the research policy does not allow",
            site.uri(),
            denied.uri(),
            domain_of(&denied)
        )
    );
    assert!(
        denied.received_requests().await.unwrap().is_empty(),
        "the denied domain was never asked"
    );

    let error = fetcher()
        .fetch(&format!("{}/loop", site.uri()), &allowed)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::TooManyRedirects { .. }),
        "{error:?}"
    );
}

#[tokio::test]
async fn text_is_read_as_it_is_and_other_bodies_are_refused() {
    let server = serve(
        "/notes.txt",
        ResponseTemplate::new(200)
            .set_body_raw("line one\n\u{1b}[31mline two\n", "text/plain")
            .insert_header("last-modified", "Fri, 06 Mar 2026 10:00:00 GMT"),
    )
    .await;
    mount(
        &server,
        "/data.json",
        ResponseTemplate::new(200).set_body_raw("{\"rate\": 0.041}", "application/json"),
    )
    .await;
    mount(
        &server,
        "/chart.png",
        ResponseTemplate::new(200).set_body_raw(vec![0x89, b'P', b'N', b'G'], "image/png"),
    )
    .await;
    mount(&server, "/gone", ResponseTemplate::new(404)).await;

    let text = fetcher()
        .fetch(&format!("{}/notes.txt", server.uri()), &|_| true)
        .await
        .unwrap();
    assert_eq!(
        (text.title.as_str(), text.body.as_str()),
        ("", "line one\nline two")
    );
    assert_eq!(text.published_at, "2026-03-06", "from Last-Modified");
    let json = fetcher()
        .fetch(&format!("{}/data.json", server.uri()), &|_| true)
        .await
        .unwrap();
    assert_eq!(json.body, "{\"rate\": 0.041}");
    let image = fetcher()
        .fetch(&format!("{}/chart.png", server.uri()), &|_| true)
        .await
        .unwrap_err();
    assert_eq!(
        image.to_string(),
        format!(
            "{}/chart.png is image/png, not a page that can be read as text",
            server.uri()
        )
    );
    let gone = fetcher()
        .fetch(&format!("{}/gone", server.uri()), &|_| true)
        .await
        .unwrap_err();
    assert_eq!(gone.status(), Some(404));
    assert_eq!(
        gone.to_string(),
        format!("{}/gone answered HTTP 404", server.uri())
    );
}

#[tokio::test]
async fn a_long_text_is_cut_and_marked() {
    let long = "z".repeat(MAX_TEXT_CHARS + 10);
    let server = serve(
        "/long",
        ResponseTemplate::new(200).set_body_raw(long, "text/plain"),
    )
    .await;
    let page = fetcher()
        .fetch(&format!("{}/long", server.uri()), &|_| true)
        .await
        .unwrap();
    assert!(page.truncated);
    assert_eq!(page.body.chars().count(), MAX_TEXT_CHARS);
    assert_eq!(page.tool_output()["data"]["truncated"], true);
}

#[tokio::test]
async fn urls_that_are_not_web_urls_and_closed_ports_fail_plainly() {
    let error = fetcher()
        .fetch("ftp://files.example/x", &|_| true)
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "ftp://files.example/x: expected an http:// or https:// URL"
    );
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let error = fetcher()
        .fetch(&format!("http://127.0.0.1:{port}/x"), &|_| true)
        .await
        .unwrap_err();
    assert!(matches!(error, FetchError::Unreachable { .. }), "{error:?}");
}

#[test]
fn the_policy_check_wants_both_lists() {
    let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
    let limits = ResearchLimits {
        policy: set(&["a.example", "b.example"]),
        execution: set(&["a.example", "c.example"]),
        max_urls: 6,
        max_read_pages: 3,
        max_notes: 6,
        max_answer_chars: 850,
        max_seconds: 25.0,
        max_steps: 8,
    };
    let allowed = allowed_by(&limits);
    assert!(allowed("a.example"));
    assert!(!allowed("b.example") && !allowed("c.example") && !allowed("d.example"));
}

#[tokio::test]
async fn a_search_answer_leads_to_pages_read_only_where_allowed() {
    let site = serve(
        "/declines",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html"),
    )
    .await;
    let other = serve(
        "/declines",
        ResponseTemplate::new(200).set_body_raw(ARTICLE, "text/html"),
    )
    .await;
    let answer = json!({"results": [
        {"url": format!("{}/declines", site.uri()), "title": "Declines", "snippet": "s"},
        {"url": format!("{}/declines", other.uri()), "title": "Elsewhere"},
    ]});
    let refused: SearchError = search_output("kb_search", &json!({}), None).unwrap_err();
    assert_eq!(refused.tool, "kb_search");
    let output = search_output("kb_search", &answer, Some(10)).unwrap();
    let allowed_domain = domain_of(&site);
    let allowed = |domain: &str| domain == allowed_domain;
    let mut read = Vec::new();
    for result in output["data"]["results"].as_array().unwrap() {
        let url = result["url"].as_str().unwrap();
        // The pattern's own check comes first; fetch trusts it.
        if allowed(&url_domain(url)) {
            read.push(fetcher().fetch(url, &allowed).await.unwrap().tool_output());
        }
    }
    assert_eq!(read.len(), 1);
    assert_eq!(read[0]["data"]["title"], "Card declines");
    assert!(other.received_requests().await.unwrap().is_empty());
}
