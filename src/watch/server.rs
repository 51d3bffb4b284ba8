//! The HTTP endpoint (`tiny_http`, one thread): `/metrics` (OpenMetrics
//! when the scraper asks for it, else the Prometheus text format),
//! `/healthz`, `/readyz`, and `/` (the HTML timeline of a recent window,
//! `/?window=1h`).

use super::core::Watcher;
use super::window;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The window `/` shows when the request names none.
const DEFAULT_WINDOW: Duration = Duration::from_secs(3600);

/// The running server.
pub struct Server {
    http: Arc<tiny_http::Server>,
    thread: Option<std::thread::JoinHandle<()>>,
    pub addr: String,
}

impl Server {
    /// Listens on `addr` and serves from `watcher`; `/` reads `paths`.
    pub fn start(addr: &str, watcher: Watcher, paths: Vec<PathBuf>) -> std::io::Result<Server> {
        let http = tiny_http::Server::http(addr)
            .map_err(|e| std::io::Error::other(format!("cannot listen on {addr}: {e}")))?;
        let bound = http
            .server_addr()
            .to_ip()
            .map_or_else(|| addr.to_string(), |a| a.to_string());
        let http = Arc::new(http);
        let serving = http.clone();
        let thread = std::thread::Builder::new()
            .name("http".into())
            .spawn(move || {
                for req in serving.incoming_requests() {
                    // One bad request never ends the server.
                    let _ = crate::guard::guarded(|| respond(req, &watcher, &paths));
                }
            })?;
        Ok(Server {
            http,
            thread: Some(thread),
            addr: bound,
        })
    }

    /// Stops serving.
    pub fn stop(mut self) {
        self.http.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn text(
    status: u16,
    body: impl Into<Vec<u8>>,
    content_type: &str,
) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut r = tiny_http::Response::from_data(body.into()).with_status_code(status);
    if let Ok(h) = tiny_http::Header::from_bytes(&b"Content-Type"[..], content_type.as_bytes()) {
        r.add_header(h);
    }
    r
}

/// The value of `name` in a query string.
fn query_value<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn respond(req: tiny_http::Request, watcher: &Watcher, paths: &[PathBuf]) {
    let url = req.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let get = matches!(
        req.method(),
        tiny_http::Method::Get | tiny_http::Method::Head
    );
    const PLAIN: &str = "text/plain; charset=utf-8";
    let resp = if !get {
        text(405, "only GET and HEAD\n", PLAIN)
    } else {
        match path {
            "/metrics" => {
                let openmetrics = req.headers().iter().any(|h| {
                    h.field.equiv("Accept")
                        && h.value.as_str().contains("application/openmetrics-text")
                });
                let body = watcher.lock().metrics.encode(Instant::now(), openmetrics);
                let ct = if openmetrics {
                    "application/openmetrics-text; version=1.0.0; charset=utf-8"
                } else {
                    "text/plain; version=0.0.4; charset=utf-8"
                };
                text(200, body, ct)
            }
            "/healthz" => {
                if watcher.lock().finished {
                    text(503, "the audit has stopped\n", PLAIN)
                } else {
                    text(200, "ok\n", PLAIN)
                }
            }
            "/readyz" => {
                let why = watcher.lock().metrics.not_ready();
                match why {
                    None => text(200, "ready\n", PLAIN),
                    Some(why) => text(503, format!("not ready: {why}\n"), PLAIN),
                }
            }
            "/" => match query_value(query, "window").map(window::parse_window) {
                Some(None) => text(
                    400,
                    "window: a duration such as 30m, 1h, 2d or a number of seconds (at most a year)\n",
                    PLAIN,
                ),
                w => {
                    let w = w.flatten().unwrap_or(DEFAULT_WINDOW);
                    // One page at a time.
                    static PAGE: std::sync::Mutex<()> = std::sync::Mutex::new(());
                    let _one = PAGE.lock().unwrap_or_else(|e| e.into_inner());
                    match window::render(paths, w) {
                        Ok(page) => text(200, page, "text/html; charset=utf-8"),
                        Err(e) => text(500, format!("cannot make the page: {e}\n"), PLAIN),
                    }
                }
            },
            _ => text(
                404,
                "not found: /metrics, /healthz, /readyz, /?window=1h\n",
                PLAIN,
            ),
        }
    };
    let _ = req.respond(resp);
}
