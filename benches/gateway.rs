//! What Conclave's model endpoint adds to a call (docs/gateway.md, "What
//! the endpoint costs"): `conclave watch --headless --upstream URL`, a
//! loopback upstream answering as an OpenAI-compatible server does, and a
//! client calling the upstream directly and through the watch's endpoint,
//! interleaved (each round in the reverse order of the one before), on
//! one kept-alive connection each. Two rows, `cargo bench --bench gateway
//! -- stream` runs one:
//! - `whole`: a Chat Completions call answered whole at once; the time
//!   from the request's send to its whole answer read. The bars: at most
//!   1 ms added at the median, 5 ms at p99.
//! - `stream`: a streamed call the upstream answers 5 ms later with its
//!   first chunk, then three more and a usage chunk 1 ms apart; the time
//!   to the first chunk and to the stream's end. The bar: the first chunk
//!   within 5 ms of the upstream's, medians.
//!
//! Medians, p25..p75, p99, each round's difference and the spread of its
//! medians over three groups of rounds are printed.
//! `CONCLAVE_GATEWAY_ROUNDS` sets the rounds (1,000, after 50 not
//! counted).

#[path = "common/measure.rs"]
mod measure;
#[path = "common/stats.rs"]
mod stats;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use stats::{group_medians, least, median, most, quantile, quartiles, verdict};
use std::convert::Infallible;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_conclave");
const KEY_ENV: &str = "CONCLAVE_BENCH_UPSTREAM_KEY";
const WARM_UP: usize = 50;
/// Issue 87's bars, ms.
const ADDED_MEDIAN_BAR: f64 = 1.0;
const ADDED_P99_BAR: f64 = 5.0;
const FIRST_CHUNK_BAR: f64 = 5.0;
/// The upstream's stream: its first chunk this long after the request,
/// the rest this far apart.
const FIRST_CHUNK_AFTER: Duration = Duration::from_millis(5);
const BETWEEN_CHUNKS: Duration = Duration::from_millis(1);
const TEXT_CHUNKS: [&str; 4] = ["The", " answer", " is", " 42."];

type Body = BoxBody<Bytes, Infallible>;

fn main() {
    let wanted = measure::wanted_rows();
    let rounds: usize = std::env::var("CONCLAVE_GATEWAY_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1_000)
        .max(3);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let upstream = upstream().await;
        let mut watch = Watch::start(&upstream);
        let client = Client::new(&upstream, &watch.gateway);
        if wanted("whole") {
            whole_row(&client, rounds).await;
        }
        if wanted("stream") {
            stream_row(&client, rounds).await;
        }
        watch.stop();
    });
}

/// The loopback upstream's base URL (with `/v1`), served on this runtime.
async fn upstream() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let at = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), hyper::service::service_fn(answer)),
            );
        }
    });
    format!("http://{at}/v1")
}

/// The upstream's answer: whole at once, or streamed as the module says.
async fn answer(request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let body = request.into_body().collect().await.map(|b| b.to_bytes());
    let asked: Value = serde_json::from_slice(&body.unwrap_or_default()).unwrap_or(Value::Null);
    if asked["stream"] != true {
        let whole = json!({"id": "c1", "object": "chat.completion", "created": 1, "model": "bench-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "The answer is 42."}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}});
        let body = Full::new(Bytes::from(whole.to_string())).boxed();
        return Ok(Response::builder()
            .header("content-type", "application/json")
            .body(body)
            .expect("a response"));
    }
    let frames = futures_util::stream::unfold(0usize, |i| async move {
        let event = match i {
            0..4 => json!({"id": "c2", "object": "chat.completion.chunk", "model": "bench-model",
                "choices": [{"index": 0, "delta": {"content": TEXT_CHUNKS[i]}, "finish_reason": null}]}),
            4 => json!({"id": "c2", "object": "chat.completion.chunk", "model": "bench-model",
                "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}}),
            _ => return None,
        };
        let wait = if i == 0 {
            FIRST_CHUNK_AFTER
        } else {
            BETWEEN_CHUNKS
        };
        tokio::time::sleep(wait).await;
        let mut text = format!("data: {event}\n\n");
        if i == 4 {
            text.push_str("data: [DONE]\n\n");
        }
        Some((Ok(Frame::data(Bytes::from(text))), i + 1))
    });
    Ok(Response::builder()
        .header("content-type", "text/event-stream")
        .body(BodyExt::boxed(StreamBody::new(frames)))
        .expect("a response"))
}

/// `conclave watch --headless --upstream URL`, and its endpoint's base.
struct Watch {
    child: Child,
    gateway: String,
}

impl Watch {
    fn start(upstream: &str) -> Watch {
        let mut child = Command::new(BINARY)
            .args([
                "watch",
                "--headless",
                "--no-grpc",
                "--listen",
                "127.0.0.1:0",
            ])
            .args(["--upstream", upstream, "--upstream-key-env", KEY_ENV])
            .env(KEY_ENV, "sk-bench-upstream")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conclave watch runs");
        let stderr = BufReader::new(child.stderr.take().expect("its stderr"));
        let mut lines = stderr.lines().map_while(Result::ok);
        let base = lines
            .find_map(|line| {
                let at = line.split("listening for OTLP on ").nth(1)?;
                let url = at.split_whitespace().next()?;
                Some(url.trim_end_matches("/v1/traces").to_string())
            })
            .expect("the watch says where it listens");
        // Its later lines are read, never left to fill the pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Watch {
            child,
            gateway: format!("{base}/gateway/bench/v1"),
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One client per side, each on its own kept-alive connection.
struct Client {
    direct: (reqwest::Client, String),
    gateway: (reqwest::Client, String),
}

impl Client {
    fn new(upstream: &str, gateway: &str) -> Client {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = || {
            reqwest::Client::builder()
                .pool_max_idle_per_host(1)
                .tcp_nodelay(true)
                .build()
                .expect("an HTTP client")
        };
        Client {
            direct: (client(), format!("{upstream}/chat/completions")),
            gateway: (client(), format!("{gateway}/chat/completions")),
        }
    }

    fn side(&self, through: bool) -> &(reqwest::Client, String) {
        if through { &self.gateway } else { &self.direct }
    }

    /// A whole call: ms to the answer read.
    async fn whole(&self, through: bool) -> f64 {
        let (client, url) = self.side(through);
        let began = Instant::now();
        let answer = client
            .post(url)
            .bearer_auth("sk-the-programs-own")
            .json(&json!({"model": "bench-model", "messages": [{"role": "user", "content": "Answer."}]}))
            .send()
            .await
            .expect("the call is answered");
        assert!(answer.status().is_success(), "{}", answer.status());
        let body = answer.bytes().await.expect("the whole answer");
        let took = ms(began.elapsed());
        assert!(
            body.windows(4).any(|w| w == b"42.\""),
            "{}",
            String::from_utf8_lossy(&body)
        );
        took
    }

    /// A streamed call: ms to its first chunk and to its end.
    async fn stream(&self, through: bool) -> (f64, f64) {
        let (client, url) = self.side(through);
        let began = Instant::now();
        let answer = client
            .post(url)
            .bearer_auth("sk-the-programs-own")
            .json(&json!({"model": "bench-model", "stream": true,
                "messages": [{"role": "user", "content": "Answer."}]}))
            .send()
            .await
            .expect("the call is answered");
        assert!(answer.status().is_success(), "{}", answer.status());
        let mut chunks = answer.bytes_stream();
        let mut seen = chunks
            .next()
            .await
            .expect("a first chunk")
            .expect("it reads")
            .to_vec();
        let first = ms(began.elapsed());
        while let Some(chunk) = chunks.next().await {
            seen.extend_from_slice(&chunk.expect("the stream reads"));
        }
        let end = ms(began.elapsed());
        let text = String::from_utf8_lossy(&seen);
        assert!(text.contains(" 42.") && text.contains("[DONE]"), "{text}");
        (first, end)
    }
}

async fn whole_row(client: &Client, rounds: usize) {
    let (direct, through) = interleaved(rounds, async |through| client.whole(through).await).await;
    println!("gateway whole call, {rounds} rounds interleaved (send to the whole answer read):");
    compare(&direct, &through);
    let added_p99 = quantile(&through, 0.99) - quantile(&direct, 0.99);
    let added = median(&differences(&direct, &through));
    println!(
        "  bars: added median {added:.3} ms <= {ADDED_MEDIAN_BAR} ms: {}; added p99 {added_p99:.3} ms \
         (p99 through less p99 direct) <= {ADDED_P99_BAR} ms: {}",
        verdict(added <= ADDED_MEDIAN_BAR),
        verdict(added_p99 <= ADDED_P99_BAR)
    );
}

async fn stream_row(client: &Client, rounds: usize) {
    let (direct, through) = interleaved(rounds, async |through| client.stream(through).await).await;
    let firsts = |runs: &[(f64, f64)]| runs.iter().map(|r| r.0).collect::<Vec<_>>();
    let ends = |runs: &[(f64, f64)]| runs.iter().map(|r| r.1).collect::<Vec<_>>();
    println!(
        "gateway streamed call, {rounds} rounds interleaved (send to the first chunk; \
         the upstream sends it after {} ms):",
        FIRST_CHUNK_AFTER.as_millis()
    );
    let (direct_first, through_first) = (firsts(&direct), firsts(&through));
    compare(&direct_first, &through_first);
    let later = median(&through_first) - median(&direct_first);
    println!(
        "  bar: first chunk {later:.3} ms after the upstream's (medians) <= {FIRST_CHUNK_BAR} ms: {}",
        verdict(later <= FIRST_CHUNK_BAR)
    );
    println!("gateway streamed call (send to the stream's end):");
    compare(&ends(&direct), &ends(&through));
}

/// `call` made directly and through the endpoint (`true`), interleaved,
/// each round in the reverse order of the one before; the rounds after
/// the warm-up are kept, each side's in order.
async fn interleaved<T>(rounds: usize, call: impl AsyncFn(bool) -> T) -> (Vec<T>, Vec<T>) {
    let (mut direct, mut through) = (Vec::new(), Vec::new());
    for round in 0..WARM_UP + rounds {
        let (d, t) = if round % 2 == 0 {
            let d = call(false).await;
            (d, call(true).await)
        } else {
            let t = call(true).await;
            (call(false).await, t)
        };
        if round >= WARM_UP {
            direct.push(d);
            through.push(t);
        }
    }
    (direct, through)
}

/// Each side's median, quartiles and p99, and each round's difference.
fn compare(direct: &[f64], through: &[f64]) {
    for (name, runs) in [("direct", direct), ("through", through)] {
        let (p25, p75) = quartiles(runs);
        println!(
            "  {name:<8} median {:7.3} ms (p25..p75 {p25:.3}..{p75:.3}, p99 {:.3})",
            median(runs),
            quantile(runs, 0.99)
        );
    }
    let added = differences(direct, through);
    let groups = group_medians(&added);
    let (low, high) = (least(&groups), most(&groups));
    println!(
        "  added    median {:7.3} ms (each round's difference; p99 {:.3}; medians of three groups \
         {low:.3}..{high:.3}, spread {:.3} ms)",
        median(&added),
        quantile(&added, 0.99),
        high - low
    );
}

fn differences(direct: &[f64], through: &[f64]) -> Vec<f64> {
    through.iter().zip(direct).map(|(t, d)| t - d).collect()
}

fn ms(took: Duration) -> f64 {
    took.as_secs_f64() * 1e3
}
