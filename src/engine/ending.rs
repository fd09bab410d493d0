//! How a run ends: its outcome, and its recording, which the writer may
//! still be finishing when the outcome is known (a long result is printed
//! meanwhile), and the errors either may end in.

use super::RunHandle;
use crate::patterns::RunOutcome;
use crate::record::Recorder;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the run crashed: {0}")]
    Crashed(String),
    #[error("the recording {} is incomplete: {source}", path.display())]
    Recording {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl EngineError {
    /// A crash's words (a panic's message may quote anything), scrubbed.
    fn crashed(error: &dyn std::fmt::Display) -> Self {
        EngineError::Crashed(crate::secrets::scrub(&error.to_string()).into_owned())
    }
}

/// How a run ended, with its recording apart: a recording that could not
/// be written does not take the run's outcome with it.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) outcome: RunOutcome,
    /// Why the recording is incomplete ([`EngineError::Recording`]), when
    /// writing it failed.
    pub(crate) recording_failed: Option<EngineError>,
    /// Why the `--cache` file could not be written, when it could not.
    pub(crate) cache_failed: Option<crate::gateway::CacheError>,
    /// A live call would have started a program nobody allowed, and the
    /// run stopped there: why, naming the file and the place.
    pub(crate) refused_program: Option<String>,
}

impl RunHandle {
    /// Wait for the run to end and its recording to be complete on disk; a
    /// recording that could not be written is an error.
    pub async fn finish(self) -> Result<RunOutcome, EngineError> {
        let ended = self.end().await?;
        match ended.recording_failed {
            Some(e) => Err(e),
            None => Ok(ended.outcome),
        }
    }

    /// Wait for the run to end and its recording to be complete on disk;
    /// the outcome is kept when only the recording failed. An error means
    /// the run crashed.
    pub(crate) async fn end(self) -> Result<Ended, EngineError> {
        let (mut ended, writing) = self.end_while_written().await?;
        ended.recording_failed = writing.written().await?;
        Ok(ended)
    }

    /// Wait for the run to end, but not for its recording: the outcome can
    /// be used (a long result printed) while the writer finishes the file,
    /// which [`Writing::written`] then waits for. A crashed run's recording
    /// is complete before the crash is said.
    pub(crate) async fn end_while_written(self) -> Result<(Ended, Writing), EngineError> {
        let outcome = self.task.await;
        let writing = Writing(self.recorder);
        let end = match outcome {
            Ok(end) => end,
            Err(e) => {
                writing.written().await?;
                return Err(EngineError::crashed(&e));
            }
        };
        let ended = Ended {
            outcome: end.outcome,
            recording_failed: None,
            cache_failed: end.cache_failed,
            refused_program: end.refused_program,
        };
        Ok((ended, writing))
    }
}

/// A run's recording while its writer finishes the file.
#[must_use = "the recording is complete only once written"]
pub(crate) struct Writing(Option<Recorder>);

impl Writing {
    /// Wait until every recorded event is on disk: why the recording is
    /// incomplete ([`EngineError::Recording`]), when writing it failed.
    pub(crate) async fn written(self) -> Result<Option<EngineError>, EngineError> {
        let Some(recorder) = self.0 else {
            return Ok(None);
        };
        let path = recorder.path().to_path_buf();
        let written = tokio::task::spawn_blocking(move || recorder.finish())
            .await
            .map_err(|e| EngineError::crashed(&e))?;
        Ok(written
            .err()
            .map(|source| EngineError::Recording { path, source }))
    }
}
