//! MCP tools against a real MCP server: the `conclave-mcp-demo` binary that
//! cargo builds with Conclave, started as a process over stdio and over
//! streamable HTTP on a loopback port. Nothing here leaves the machine.

use conclave::provider::mcp::{McpError, McpServers, McpTools};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

const DEMO: &str = env!("CARGO_BIN_EXE_conclave-mcp-demo");

/// An upper bound for things that must not hang; never reached when all
/// is well, and nothing asserts how long anything took.
const NO_HANG: Duration = Duration::from_secs(20);

fn servers(value: Value) -> McpServers {
    serde_json::from_value(value).unwrap()
}

/// A stdio demo server whose processes carry `mark` in their environment,
/// so the test can find them (and see that they are gone).
fn stdio_demo(mark: &str) -> McpServers {
    servers(json!({"kb": {"command": [DEMO], "env": {"CONCLAVE_TEST_MARK": mark}}}))
}

/// Start the demo over streamable HTTP on a loopback port: the process
/// (killed when dropped) and its MCP endpoint.
async fn http_demo() -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(DEMO)
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let url = tokio::time::timeout(NO_HANG, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (child, url)
}

async fn start(servers: &McpServers) -> McpTools {
    tokio::time::timeout(NO_HANG, McpTools::start(servers, Path::new(".")))
        .await
        .expect("start hung")
        .unwrap_or_else(|e| panic!("{e}"))
}

async fn call(tools: &McpTools, tool: &str, args: Value) -> Result<Value, McpError> {
    tokio::time::timeout(NO_HANG, tools.call("kb", tool, &args))
        .await
        .expect("call hung")
}

/// The pids of live processes whose environment holds `mark`.
fn marked(mark: &str) -> Vec<u32> {
    let needle = format!("CONCLAVE_TEST_MARK={mark}\0");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(environ) = std::fs::read(entry.path().join("environ"))
            && String::from_utf8_lossy(&environ).contains(&needle)
        {
            pids.push(pid);
        }
    }
    pids
}

/// Wait (a bounded number of short polls) until no process carries `mark`.
async fn none_left(mark: &str) -> Vec<u32> {
    for _ in 0..100 {
        if marked(mark).is_empty() {
            return Vec::new();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    marked(mark)
}

/// The whole happy and unhappy path against one session.
async fn exercise(tools: &McpTools) {
    // tools/list was kept: the descriptions are the server's.
    assert_eq!(
        tools.description("kb", "lookup"),
        Some("Look up an order, customer or SKU record by key (e.g. order:1001)")
    );
    assert_eq!(tools.description("kb", "nope"), None);
    assert_eq!(tools.description("other", "lookup"), None);
    let names = tools.tools("kb").unwrap();
    assert_eq!(&names[..3], ["search", "lookup", "slow"]);

    // Structured content is the result.
    let found = call(tools, "search", json!({"query": "card payment", "k": 2}))
        .await
        .unwrap();
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(
        results[0]["title"],
        "Card declines after the gateway update"
    );
    assert!(
        results[0]["url"]
            .as_str()
            .unwrap()
            .contains("card-declines")
    );

    // A text content that is a JSON object is the result.
    let record = call(tools, "lookup", json!({"key": "order:1001"}))
        .await
        .unwrap();
    assert_eq!(
        record,
        json!({"key": "order:1001", "found": true,
               "record": {"status": "charged_twice", "amount": 42.5, "currency": "EUR"}})
    );

    // Calls run side by side on one session.
    let keys = ["order:1001", "order:1002", "customer:ana", "sku:A-100", "x"];
    let answers = futures_util::future::join_all(
        keys.iter()
            .map(|key| call(tools, "lookup", json!({"key": key}))),
    )
    .await;
    for (key, answer) in keys.iter().zip(answers) {
        assert_eq!(answer.unwrap()["key"], *key);
    }

    // isError is the tool's failure, with its words.
    match call(tools, "fail", json!({})).await {
        Err(McpError::Tool { message, .. }) => {
            assert_eq!(message, "the knowledge base is offline for maintenance")
        }
        other => panic!("{other:?}"),
    }

    // Text that is not JSON is a bad result.
    let bad = call(tools, "chatter", json!({})).await.unwrap_err();
    assert!(bad.is_bad_result(), "{bad:?}");
    assert_eq!(
        bad.to_string(),
        "MCP tool `kb/chatter` answered with text that is not JSON: \"All good here, nothing to report.\", not a JSON object"
    );

    // An unknown tool names the ones there are, without a call.
    let unknown = call(tools, "serch", json!({})).await.unwrap_err();
    let McpError::UnknownTool { available, .. } = &unknown else {
        panic!("{unknown:?}")
    };
    assert_eq!(available.len(), 8);
    assert!(
        unknown
            .to_string()
            .contains("(its tools: `search`, `lookup`")
    );
    assert!(matches!(
        tools.check_tool("kb", "serch"),
        Err(McpError::UnknownTool { .. })
    ));
    assert!(tools.check_tool("kb", "search").is_ok());
    assert!(matches!(
        tools.call("wiki", "search", &json!({})).await,
        Err(McpError::UnknownServer { .. })
    ));

    // Arguments that are not an object are refused before they are sent.
    assert!(matches!(
        call(tools, "lookup", json!([1])).await,
        Err(McpError::Refused { .. })
    ));

    // A call dropped part way (as the gateway's timeout does) is cancelled
    // on the server, and the session goes on.
    let dropped = tokio::time::timeout(
        Duration::from_millis(200),
        tools.call("kb", "slow", &json!({"ms": 60_000})),
    )
    .await;
    assert!(dropped.is_err(), "the slow call should not have finished");
    let after = call(tools, "lookup", json!({"key": "sku:A-100"}))
        .await
        .unwrap();
    assert_eq!(after["record"]["on_hand"], 120);
    let mut cancelled = json!(null);
    for _ in 0..100 {
        cancelled = call(tools, "stats", json!({})).await.unwrap()["cancelled"].clone();
        if cancelled == json!(1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        cancelled,
        json!(1),
        "the server was told of the cancellation"
    );
}

#[tokio::test]
async fn a_stdio_server_lists_calls_and_shuts_down_with_nothing_left() {
    let mark = "stdio-happy";
    let tools = start(&stdio_demo(mark)).await;
    assert_eq!(marked(mark).len(), 1, "one server process per run");
    exercise(&tools).await;
    // A process the server started is in its group, and goes with it.
    call(&tools, "spawn", json!({})).await.unwrap();
    assert_eq!(marked(mark).len(), 2);
    tools.shutdown().await;
    assert_eq!(none_left(mark).await, Vec::<u32>::new());
}

#[tokio::test]
async fn a_streamable_http_server_lists_and_calls() {
    let (_server, url) = http_demo().await;
    let tools = start(&servers(json!({"kb": {"url": url}}))).await;
    exercise(&tools).await;
    tools.shutdown().await;
}

#[tokio::test]
async fn a_stdio_server_that_exits_mid_call_fails_that_call_and_every_later_one() {
    let mark = "stdio-crash";
    let tools = start(&stdio_demo(mark)).await;
    let error = call(&tools, "crash", json!({})).await.unwrap_err();
    let McpError::Exited { status, stderr, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(status, "exit status: 3");
    assert!(stderr.contains("crash requested"), "{stderr}");
    assert!(
        error.to_string().starts_with(
            "MCP server `kb` exited during the run (exit status: 3); its stderr ends:"
        ),
        "{error}"
    );
    for tool in ["lookup", "search"] {
        let later = call(&tools, tool, json!({"key": "order:1001", "query": "x"}))
            .await
            .unwrap_err();
        assert_eq!(later, error, "later calls fail at once with the same error");
    }
    tools.shutdown().await;
    assert_eq!(none_left(mark).await, Vec::<u32>::new());
}

#[tokio::test]
async fn an_http_server_that_goes_away_fails_calls_without_hanging() {
    let (_server, url) = http_demo().await;
    let tools = start(&servers(json!({"kb": {"url": url}}))).await;
    let error = call(&tools, "crash", json!({})).await.unwrap_err();
    assert!(matches!(error, McpError::Disconnected { .. }), "{error:?}");
    let later = call(&tools, "lookup", json!({"key": "order:1001"}))
        .await
        .unwrap_err();
    assert!(matches!(later, McpError::Disconnected { .. }), "{later:?}");
    assert!(
        later.to_string().contains("error sending request for url"),
        "{later}"
    );
    tools.shutdown().await;
}

#[tokio::test]
async fn dropping_the_tools_kills_the_server_process_group() {
    let mark = "stdio-dropped";
    let tools = start(&stdio_demo(mark)).await;
    call(&tools, "spawn", json!({})).await.unwrap();
    assert_eq!(marked(mark).len(), 2);
    // A call left hanging, then everything dropped without a shutdown.
    let _ = tokio::time::timeout(
        Duration::from_millis(100),
        tools.call("kb", "slow", &json!({"ms": 60_000})),
    )
    .await;
    drop(tools);
    assert_eq!(none_left(mark).await, Vec::<u32>::new());
}

#[tokio::test]
async fn a_missing_program_is_named_and_nothing_else_keeps_running() {
    let mark = "stdio-missing";
    let both = servers(json!({
        "kb": {"command": [DEMO], "env": {"CONCLAVE_TEST_MARK": mark}},
        "wiki": {"command": ["tools/no-such-server", "--flag"]},
    }));
    let folder = tempfile::tempdir().unwrap();
    let error = McpTools::start(&both, folder.path()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "MCP server `wiki`: cannot start `{}/tools/no-such-server`: no such program (a path in `command` is relative to the scenario file)",
            folder.path().display()
        )
    );
    assert_eq!(none_left(mark).await, Vec::<u32>::new(), "kb was shut down");
    let bare = servers(json!({"kb": {"command": ["conclave-no-such-program"]}}));
    let error = McpTools::start(&bare, Path::new(".")).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "MCP server `kb`: cannot start `conclave-no-such-program`: no such program on PATH"
    );
}

#[tokio::test]
async fn a_program_that_is_not_an_mcp_server_fails_the_handshake_with_its_stderr() {
    let wrong = servers(json!({"kb": {"command": [DEMO, "--no-such-flag"]}}));
    let error = tokio::time::timeout(NO_HANG, McpTools::start(&wrong, Path::new(".")))
        .await
        .unwrap()
        .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, McpError::Handshake { .. }), "{error:?}");
    assert!(
        text.starts_with(
            "MCP server `kb` did not complete the MCP handshake: it exited (exit status: 2)"
        ),
        "{text}"
    );
    assert!(
        text.contains("its stderr ends: \"usage: conclave-mcp-demo"),
        "{text}"
    );
}

#[tokio::test]
async fn a_relative_program_and_cwd_are_read_from_the_scenario_folder() {
    let demo = Path::new(DEMO);
    let folder = demo.parent().unwrap();
    let name = demo.file_name().unwrap().to_string_lossy();
    let relative = servers(json!({"kb": {"command": [format!("./{name}")], "cwd": "."}}));
    let tools = tokio::time::timeout(NO_HANG, McpTools::start(&relative, folder))
        .await
        .unwrap()
        .unwrap();
    assert!(call(&tools, "stats", json!({})).await.is_ok());
    tools.shutdown().await;
    let missing_cwd = servers(json!({"kb": {"command": [DEMO], "cwd": "no-such-folder"}}));
    let error = McpTools::start(&missing_cwd, folder).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no-such-folder is not a directory"),
        "{error}"
    );
}

#[tokio::test]
async fn an_http_url_where_no_server_listens_fails_the_handshake() {
    // Bind a port, then free it: nothing listens there any more.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let nowhere = servers(json!({"kb": {"url": format!("http://127.0.0.1:{port}/mcp")}}));
    let error = tokio::time::timeout(NO_HANG, McpTools::start(&nowhere, Path::new(".")))
        .await
        .unwrap()
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "MCP server `kb` did not complete the MCP handshake: Client error: error sending request for url (http://127.0.0.1:{port}/mcp), when send initialize request"
        )
    );
    assert!(matches!(error, McpError::Handshake { .. }), "{error:?}");
}
