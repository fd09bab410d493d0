//! The signals that end Conclave from outside. Whoever listens (the
//! dashboard's loop, a headless run) ends its runs cleanly, so that
//! nothing a run started outlives the process.

use crate::exit::Signal;

/// SIGINT, SIGTERM and SIGHUP, listened for: they end the dashboard or a
/// headless run cleanly; the process then exits with 128 + the signal's
/// number, as a shell expects of a process a signal ended.
pub(crate) struct Signals {
    #[cfg(unix)]
    streams: Vec<(Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    pub(crate) fn new() -> std::io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                streams: vec![
                    (Signal::Interrupt, signal(SignalKind::interrupt())?),
                    (Signal::Terminate, signal(SignalKind::terminate())?),
                    (Signal::Hangup, signal(SignalKind::hangup())?),
                ],
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next signal received; `None` if the runtime can deliver no
    /// more (it is shutting down), which ends the dashboard too.
    pub(crate) async fn next(&mut self) -> Option<Signal> {
        #[cfg(unix)]
        {
            let waits = self.streams.iter_mut().map(|(signal, stream)| {
                Box::pin(async move { stream.recv().await.map(|()| *signal) })
            });
            futures_util::future::select_all(waits).await.0
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}

/// The next of `signals`' signals, or never when there are none to hear
/// (a launch driven from the dashboard, whose loop hears them).
pub(crate) async fn next_of(signals: Option<&mut Signals>) -> Option<Signal> {
    match signals {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}
