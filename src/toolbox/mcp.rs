//! `conclave toolbox mcp` (also built as `conclave-mcp-demo`): a small
//! Model Context Protocol server that ships with Conclave, so that its
//! examples and tests run against a real MCP server with nothing
//! installed. It speaks MCP over stdin and stdout, or over streamable HTTP
//! with `--http 127.0.0.1:0` (it prints its endpoint on the first line of
//! stdout; it then also serves its knowledge base's pages as HTML under
//! `/pages/`).
//!
//! Tools: `search` (a small knowledge base, structured results), `lookup`
//! (records by key, a JSON object as text), `slow` (waits, or stops when
//! the call is cancelled), `stats` (calls and cancellations seen), and
//! three that misbehave on purpose: `fail` (isError), `chatter` (text that
//! is not JSON) and `crash` (the process exits during the call); `spawn`
//! starts a helper process that outlives its call, as some servers do.

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::convert::Infallible;
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A knowledge base article: slug, title, date, text.
type Article = (&'static str, &'static str, &'static str, &'static str);

const ARTICLES: &[Article] = &[
    (
        "card-declines",
        "Card declines after the gateway update",
        "2026-03-05",
        "Card declines rose to 4.1% after the payment gateway update of 4 March; retries succeed within minutes.",
    ),
    (
        "checkout-latency",
        "Checkout latency in the EU region",
        "2026-03-06",
        "Checkout p95 latency in the EU region doubled to 1.8 s while the fraud scoring service was degraded.",
    ),
    (
        "refund-policy",
        "Refund policy for failed payments",
        "2026-02-20",
        "Customers charged twice by a failed payment are refunded automatically within three business days.",
    ),
    (
        "inventory-sync",
        "Inventory sync delays",
        "2026-03-01",
        "Warehouse inventory syncs every 15 minutes; stock shown at checkout may lag by one sync.",
    ),
];

/// Records `lookup` finds by key.
fn record(key: &str) -> Option<Value> {
    Some(match key {
        "order:1001" => json!({"status": "charged_twice", "amount": 42.5, "currency": "EUR"}),
        "order:1002" => json!({"status": "shipped", "amount": 19.0, "currency": "USD"}),
        "customer:ana" => json!({"tier": "gold", "region": "EU", "open_tickets": 1}),
        "sku:A-100" => json!({"on_hand": 120, "reserved": 8, "warehouse": "Lyon"}),
        _ => return None,
    })
}

#[derive(Clone, Default)]
struct Demo {
    stats: Arc<Stats>,
    /// The arguments that start this server again (before `--http`), for
    /// `spawn`'s helper.
    relaunch: Arc<[String]>,
    /// Where the knowledge base's pages are served, when they are.
    pages: Option<Arc<str>>,
}

#[derive(Default)]
struct Stats {
    calls: AtomicU64,
    cancelled: AtomicU64,
}

fn schema(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    let schema = json!({"type": "object", "properties": properties, "required": required});
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

fn tools() -> Vec<Tool> {
    let none = || schema(json!({}), &[]);
    vec![
        Tool::new(
            "search",
            "Search the payments knowledge base; returns {results: [{url, title, snippet}]}",
            schema(
                json!({"query": {"type": "string"}, "k": {"type": "integer", "minimum": 1}}),
                &["query"],
            ),
        ),
        Tool::new(
            "lookup",
            "Look up an order, customer or SKU record by key (e.g. order:1001)",
            schema(json!({"key": {"type": "string"}}), &["key"]),
        ),
        Tool::new(
            "slow",
            "Wait `ms` milliseconds (default 5000), then answer; stops early when cancelled",
            schema(json!({"ms": {"type": "integer", "minimum": 0}}), &[]),
        ),
        Tool::new(
            "stats",
            "How many calls and cancellations this server has seen",
            none(),
        ),
        Tool::new(
            "fail",
            "Always fails: the knowledge base is offline",
            none(),
        ),
        Tool::new("chatter", "Answers in prose instead of JSON", none()),
        Tool::new(
            "crash",
            "Exits the server process in the middle of the call",
            none(),
        ),
        Tool::new(
            "spawn",
            "Starts a helper process that outlives the call (it is in the server's process group)",
            none(),
        ),
    ]
}

impl Demo {
    fn url(&self, slug: &str) -> String {
        match &self.pages {
            Some(base) => format!("{base}/pages/{slug}"),
            None => format!("https://kb.example/{slug}"),
        }
    }

    /// Articles with the most query words in their title or text first.
    fn search(&self, args: &JsonObject) -> Value {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        let k = args.get("k").and_then(Value::as_u64).unwrap_or(5);
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut hits: Vec<(usize, &Article)> = ARTICLES
            .iter()
            .map(|article| {
                let haystack = format!("{} {}", article.1, article.3).to_lowercase();
                (
                    words
                        .iter()
                        .filter(|w| haystack.contains(w.as_str()))
                        .count(),
                    article,
                )
            })
            .filter(|(score, _)| *score > 0 || words.is_empty())
            .collect();
        hits.sort_by_key(|hit| std::cmp::Reverse(hit.0));
        let results: Vec<Value> = hits
            .iter()
            .take(usize::try_from(k).unwrap_or(usize::MAX))
            .map(|(_, (slug, title, _, text))| {
                json!({"url": self.url(slug), "title": title, "snippet": text})
            })
            .collect();
        json!({"results": results})
    }

    async fn slow(&self, args: &JsonObject, context: &RequestContext<RoleServer>) -> Value {
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(5000);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ms)) => json!({"slept_ms": ms}),
            () = context.ct.cancelled() => {
                self.stats.cancelled.fetch_add(1, Ordering::SeqCst);
                json!({"cancelled": true})
            }
        }
    }
}

impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "conclave-mcp-demo",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions("A payments knowledge base and records, for Conclave's examples.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.stats.calls.fetch_add(1, Ordering::SeqCst);
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "search" => CallToolResult::structured(self.search(&args)),
            "lookup" => {
                let key = args.get("key").and_then(Value::as_str).unwrap_or("");
                let answer = match record(key) {
                    Some(value) => json!({"key": key, "found": true, "record": value}),
                    None => json!({"key": key, "found": false}),
                };
                CallToolResult::success(vec![ContentBlock::text(answer.to_string())])
            }
            "slow" => CallToolResult::structured(self.slow(&args, &context).await),
            "stats" => CallToolResult::structured(json!({
                "calls": self.stats.calls.load(Ordering::SeqCst),
                "cancelled": self.stats.cancelled.load(Ordering::SeqCst),
            })),
            "fail" => CallToolResult::error(vec![ContentBlock::text(
                "the knowledge base is offline for maintenance",
            )]),
            "chatter" => CallToolResult::success(vec![ContentBlock::text(
                "All good here, nothing to report.",
            )]),
            "crash" => {
                eprintln!("conclave-mcp-demo: crash requested, exiting with status 3");
                std::process::exit(3);
            }
            "spawn" => {
                let helper = std::env::current_exe().and_then(|exe| {
                    std::process::Command::new(exe)
                        .args(self.relaunch.iter())
                        .args(["--http", "127.0.0.1:0"])
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::null())
                        .spawn()
                });
                match helper {
                    Ok(child) => CallToolResult::structured(json!({"pid": child.id()})),
                    Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
                }
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other:?}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

/// An article as a web page, with the script and style a real page has.
fn page(slug: &str) -> Option<String> {
    let (_, title, date, text) = ARTICLES.iter().find(|a| a.0 == slug)?;
    Some(format!(
        "<!doctype html><html><head><title>{title}</title>\
         <meta property=\"article:published_time\" content=\"{date}T09:00:00Z\">\
         <style>body {{ font-family: sans-serif }}</style></head>\
         <body><nav>Home</nav><script>track('{slug}')</script>\
         <h1>{title}</h1><p>{text}</p></body></html>"
    ))
}

async fn serve_http(address: &str, relaunch: Arc<[String]>) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    let base: Arc<str> = format!("http://{}", listener.local_addr()?).into();
    let demo = Demo {
        pages: Some(Arc::clone(&base)),
        relaunch,
        ..Demo::default()
    };
    let mcp = StreamableHttpService::new(
        move || Ok(demo.clone()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{base}/mcp")?;
    stdout.flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        // Each event of a response stream goes out as written, not held
        // for the client's delayed ACK.
        let _ = stream.set_nodelay(true);
        let mcp = TowerToHyperService::new(mcp.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
                let mcp = mcp.clone();
                async move {
                    let path = request.uri().path().to_string();
                    match path.strip_prefix("/pages/") {
                        Some(slug) => Ok(page_response(slug)),
                        None => hyper::service::Service::call(&mcp, request).await,
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn page_response(slug: &str) -> hyper::Response<BoxBody<Bytes, Infallible>> {
    let (status, body) = match page(slug) {
        Some(html) => (200, html),
        None => (404, "no such page".to_string()),
    };
    let mut response = hyper::Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or_default();
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

/// Serve MCP over stdio, or over streamable HTTP at `http` when given;
/// `relaunch` are the arguments that start this server again (before
/// `--http`), for the `spawn` tool's helper.
pub async fn serve(http: Option<&str>, relaunch: &[&str]) -> std::io::Result<()> {
    let relaunch: Arc<[String]> = relaunch.iter().map(|a| a.to_string()).collect();
    match http {
        None => serve_stdio(relaunch).await,
        Some(address) => serve_http(address, relaunch).await,
    }
}

async fn serve_stdio(relaunch: Arc<[String]>) -> std::io::Result<()> {
    let running = Demo {
        relaunch,
        ..Demo::default()
    }
    .serve(rmcp::transport::stdio())
    .await
    .map_err(std::io::Error::other)?;
    let _ = running.waiting().await;
    Ok(())
}
