//! A raw HTTP/1.1 server on 127.0.0.1 for hostile endpoints: it answers
//! each request with whatever bytes a test wants (any status, any header,
//! a body that never ends or trickles), which a well-behaved mock server
//! will not send. It records every request it read. Blocking threads, so
//! it serves a child process as well as in-process clients on any clock.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One request as the server read it.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The request line and headers, as sent.
    pub head: String,
    pub body: Vec<u8>,
}

impl Captured {
    /// The value of header `name` (case-insensitive), if sent.
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    }
}

/// How the body of a reply comes.
#[derive(Clone, Debug)]
pub enum Body {
    /// These bytes, with a `content-length` unless the reply sets one or
    /// `transfer-encoding` itself.
    Bytes(Vec<u8>),
    /// A chunked body that never ends.
    Endless,
    /// Nothing after the head: the connection stays open and silent.
    Stall,
    /// The start of a chunked body, then silence with the connection
    /// open: a body slower than any timeout.
    Partial(Vec<u8>),
    /// Nothing at all: the connection is closed once the request is read.
    HangUp,
}

#[derive(Clone, Debug)]
pub struct Reply {
    /// The status line after `HTTP/1.1 `, e.g. `200 OK` or `799 Whatever`;
    /// empty for a server that never answers at all.
    pub status: String,
    pub headers: Vec<(String, String)>,
    pub body: Body,
    /// After this reply the server is done with the connection but does
    /// not say so (its headers keep it alive): the next request sent on it
    /// is read, not answered, and the connection closed, as a client sees
    /// a server that closed it while the request was on its way.
    pub closes_after: bool,
}

impl Reply {
    pub fn new(status: u16, body: Body) -> Self {
        Reply {
            status: format!("{status} Status"),
            headers: Vec::new(),
            body,
            closes_after: false,
        }
    }

    /// This reply, after which the connection is closed as
    /// [`Reply::closes_after`] says.
    pub fn then_closes(mut self) -> Self {
        self.closes_after = true;
        self
    }

    pub fn text(status: u16, text: &str) -> Self {
        Reply::new(status, Body::Bytes(text.as_bytes().to_vec()))
    }

    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Reply::text(status, &value.to_string()).header("content-type", "application/json")
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

pub type Responder = dyn Fn(&Captured, usize) -> Reply + Send + Sync;

pub struct Loopback {
    /// `http://127.0.0.1:PORT/v1`, the base URL to give the provider.
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<Captured>>>,
    /// How many requests came on a connection the server was done with
    /// ([`Reply::closes_after`]) and had it closed under them.
    pub closed_under: Arc<AtomicUsize>,
}

impl Loopback {
    /// Serve every connection on its own thread until the test process
    /// ends; `respond` is given each request and its number (0, 1, …).
    pub fn serve(respond: impl Fn(&Captured, usize) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let closed_under = Arc::new(AtomicUsize::new(0));
        let respond: Arc<Responder> = Arc::new(respond);
        let seen = Arc::clone(&requests);
        let closed = Arc::clone(&closed_under);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (respond, seen) = (Arc::clone(&respond), Arc::clone(&seen));
                let closed = Arc::clone(&closed);
                std::thread::spawn(move || answer(stream, &*respond, &seen, &closed));
            }
        });
        Loopback {
            base_url,
            requests,
            closed_under,
        }
    }

    /// How many requests had their connection closed under them.
    pub fn closed_under(&self) -> usize {
        self.closed_under.load(Ordering::Acquire)
    }

    pub fn requests(&self) -> Vec<Captured> {
        self.requests.lock().unwrap().clone()
    }
}

/// Answer each request of one connection until the client is done.
fn answer(
    stream: TcpStream,
    respond: &Responder,
    seen: &Mutex<Vec<Captured>>,
    closed_under: &AtomicUsize,
) {
    // A reply goes out as its head, then its body: without this the body
    // can wait for the client to acknowledge the head (Nagle's algorithm);
    // the every-scenario tests, one at a time, took 19.5 s without it
    // and 17.8 s with it.
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        let number = {
            let mut seen = seen.lock().unwrap();
            seen.push(request.clone());
            seen.len() - 1
        };
        let reply = respond(&request, number);
        let closes = reply.closes_after;
        if write_reply(&mut writer, reply).is_err() {
            return;
        }
        if closes {
            // The request sent into the closing connection never reaches
            // the server's handler: it is neither answered nor counted.
            if read_request(&mut reader).is_some() {
                closed_under.fetch_add(1, Ordering::AcqRel);
            }
            let _ = writer.shutdown(std::net::Shutdown::Both);
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Captured> {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let end = line == "\r\n" || line == "\n";
        head.push_str(&line);
        if end {
            break;
        }
    }
    let mut request = Captured {
        head,
        body: Vec::new(),
    };
    let length: usize = request
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    request.body = vec![0; length];
    reader.read_exact(&mut request.body).ok()?;
    Some(request)
}

/// Write `reply`; an error means the client hung up (for an endless body,
/// the only way it ends).
fn write_reply(out: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    if matches!(reply.body, Body::HangUp) {
        let _ = out.shutdown(std::net::Shutdown::Both);
        return Err(std::io::ErrorKind::ConnectionAborted.into());
    }
    if reply.status.is_empty() {
        // Not even a status line: the endpoint accepted and went silent.
        return hold(out);
    }
    let mut head = format!("HTTP/1.1 {}\r\n", reply.status);
    let sets = |name: &str| {
        reply
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    };
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let framed = sets("content-length") || sets("transfer-encoding");
    match &reply.body {
        Body::Bytes(bytes) if !framed => {
            head.push_str(&format!("content-length: {}\r\n", bytes.len()));
        }
        Body::Endless | Body::Partial(_) if !framed => {
            head.push_str("transfer-encoding: chunked\r\n");
        }
        _ => {}
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    match reply.body {
        Body::Bytes(bytes) => out.write_all(&bytes)?,
        Body::Endless => {
            let chunk = format!("4000\r\n{}\r\n", "x".repeat(0x4000));
            loop {
                out.write_all(chunk.as_bytes())?;
            }
        }
        Body::Stall => return hold(out),
        Body::HangUp => return Ok(()),
        Body::Partial(start) => {
            out.write_all(format!("{:x}\r\n", start.len()).as_bytes())?;
            out.write_all(&start)?;
            out.write_all(b"\r\n")?;
            out.flush()?;
            return hold(out);
        }
    }
    out.flush()
}

/// Keep the connection open, silent, until the client gives up on it.
fn hold(out: &mut TcpStream) -> std::io::Result<()> {
    let mut sink = [0u8; 1];
    let _ = out.read(&mut sink);
    Err(std::io::ErrorKind::ConnectionAborted.into())
}
