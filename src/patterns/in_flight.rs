//! The tasks running at once, polled in a fixed order. When several tasks
//! can move at the same instant, they move in plan order, whatever order
//! their timers fired in, so that the same run makes the same calls in the
//! same order every time (budgets, call counters and events depend on it).
//! It runs what it is given and decides nothing.

use parking_lot::Mutex;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

type Task<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

pub(crate) struct InFlight<'a, T> {
    /// By plan index; `None` before a task starts and after it ends.
    slots: Vec<Option<(Task<'a, T>, Waker)>>,
    running: usize,
    woken: Arc<Woken>,
}

#[derive(Default)]
struct Woken {
    state: Mutex<WokenState>,
}

#[derive(Default)]
struct WokenState {
    indices: Vec<usize>,
    parent: Option<Waker>,
}

/// Wakes one task: marks its index and wakes whoever polls the set.
struct TaskWaker {
    index: usize,
    woken: Arc<Woken>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let parent = {
            let mut state = self.woken.state.lock();
            state.indices.push(self.index);
            state.parent.clone()
        };
        if let Some(parent) = parent {
            parent.wake();
        }
    }
}

impl<'a, T> InFlight<'a, T> {
    /// Room for tasks with plan indexes `0..tasks`.
    pub(crate) fn new(tasks: usize) -> Self {
        InFlight {
            slots: (0..tasks).map(|_| None).collect(),
            running: 0,
            woken: Arc::default(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.running
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.running == 0
    }

    /// Start the task with plan index `index`; it first runs at the next
    /// [`InFlight::next_batch`].
    pub(crate) fn push(&mut self, index: usize, task: Task<'a, T>) {
        let waker = Waker::from(Arc::new(TaskWaker {
            index,
            woken: Arc::clone(&self.woken),
        }));
        self.slots[index] = Some((task, waker));
        self.running += 1;
        self.woken.state.lock().indices.push(index);
    }

    /// Move every task that can move, in plan order, until none can; then
    /// the tasks that ended, in plan order. Pending while none ended.
    pub(crate) fn next_batch(&mut self) -> impl Future<Output = Vec<(usize, T)>> + '_ {
        std::future::poll_fn(move |cx| self.poll_batch(cx))
    }

    fn poll_batch(&mut self, cx: &mut Context<'_>) -> Poll<Vec<(usize, T)>> {
        let mut ended = Vec::new();
        loop {
            let mut ready = {
                let mut state = self.woken.state.lock();
                if !state
                    .parent
                    .as_ref()
                    .is_some_and(|w| w.will_wake(cx.waker()))
                {
                    state.parent = Some(cx.waker().clone());
                }
                std::mem::take(&mut state.indices)
            };
            if ready.is_empty() {
                return if ended.is_empty() {
                    Poll::Pending
                } else {
                    Poll::Ready(ended)
                };
            }
            ready.sort_unstable();
            ready.dedup();
            for index in ready {
                let Some((task, waker)) = &mut self.slots[index] else {
                    continue;
                };
                if let Poll::Ready(output) = task.as_mut().poll(&mut Context::from_waker(waker)) {
                    self.slots[index] = None;
                    self.running -= 1;
                    ended.push((index, output));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sleeper<'a>(
        log: &'a Mutex<Vec<(usize, &'static str)>>,
        index: usize,
        ms: u64,
    ) -> Task<'a, usize> {
        Box::pin(async move {
            log.lock().push((index, "start"));
            tokio::time::sleep(Duration::from_millis(ms)).await;
            log.lock().push((index, "end"));
            index
        })
    }

    #[tokio::test(start_paused = true)]
    async fn tasks_that_move_at_the_same_instant_move_in_plan_order() {
        let log = Mutex::new(Vec::new());
        let mut set = InFlight::new(4);
        // Timers set in reverse plan order, all due at 100 ms.
        for index in [3, 1, 0, 2] {
            set.push(index, sleeper(&log, index, 100));
        }
        let batch = set.next_batch().await;
        assert_eq!(
            batch.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        let ends: Vec<usize> = log
            .lock()
            .iter()
            .filter(|(_, what)| *what == "end")
            .map(|(i, _)| *i)
            .collect();
        assert_eq!(ends, vec![0, 1, 2, 3]);
        assert!(set.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn batches_come_in_time_order() {
        let log = Mutex::new(Vec::new());
        let mut set = InFlight::new(3);
        set.push(0, sleeper(&log, 0, 300));
        set.push(1, sleeper(&log, 1, 100));
        set.push(2, sleeper(&log, 2, 100));
        let start = tokio::time::Instant::now();
        assert_eq!(set.next_batch().await, vec![(1, 1), (2, 2)]);
        assert_eq!(start.elapsed(), Duration::from_millis(100));
        assert_eq!(set.len(), 1);
        assert_eq!(set.next_batch().await, vec![(0, 0)]);
        assert_eq!(start.elapsed(), Duration::from_millis(300));
    }
}
