//! conclave-mcp-demo: the MCP server of `conclave toolbox mcp` as a
//! program of its own, for tests and for MCP clients that want a plain
//! command. MCP over stdio, or over streamable HTTP with `--http ADDRESS`.

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => None,
        ["--http", address] => Some(address.to_string()),
        _ => {
            eprintln!("usage: conclave-mcp-demo [--http ADDRESS]   (stdio without --http)");
            std::process::exit(2);
        }
    };
    if let Err(error) = conclave::toolbox::mcp::serve(http.as_deref(), &[]).await {
        eprintln!("conclave-mcp-demo: {error}");
        std::process::exit(1);
    }
}
