//! Work items produced in order, done on several worker threads, and their results consumed in the same order, with
//! a bounded number of items in flight (so memory stays bounded whatever the input's size).

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError, mpsc};

/// Items `produce` hands over (through the callback it is given) are done by `work` on `workers` threads and their
/// results given to `consume` in the order they were produced; at most `2 * workers` items are between `produce` and
/// `consume` at any time. With one worker everything runs on the calling thread, item by item. A panic in `work` is
/// raised again on the calling thread once the others are done. Returns what `produce` returns.
pub(crate) fn ordered_map<P: Send, R: Send, T>(
    workers: usize,
    produce: impl FnOnce(&mut dyn FnMut(P)) -> T,
    work: impl Fn(P) -> R + Sync,
    consume: impl FnMut(R) + Send,
) -> T {
    let mut consume = consume;
    if workers <= 1 {
        return produce(&mut |item| consume(work(item)));
    }
    let in_flight = 2 * workers;
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, P)>(workers);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, std::thread::Result<R>)>();
    // One token per item allowed in flight: the producer takes one per item, the consumer gives it back.
    let (slot_tx, slot_rx) = mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        // The channel holds `in_flight` tokens: this cannot block or fail.
        let _ = slot_tx.send(());
    }
    let (work, work_rx) = (&work, &work_rx);
    let (produced, panic) = std::thread::scope(|scope| {
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            scope.spawn(move || {
                loop {
                    let next = work_rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok((seq, item)) = next else { break };
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)));
                    if done_tx.send((seq, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let consumer = scope.spawn(move || {
            let mut pending = BTreeMap::new();
            let mut next = 0;
            let mut panic = None;
            for (seq, result) in done_rx {
                pending.insert(seq, result);
                while let Some(result) = pending.remove(&next) {
                    match result {
                        Ok(result) => consume(result),
                        Err(payload) => panic = panic.or(Some(payload)),
                    }
                    next += 1;
                    // Never blocks: at most `in_flight` tokens exist.
                    let _ = slot_tx.send(());
                }
            }
            panic
        });
        let mut seq = 0;
        let produced = produce(&mut |item| {
            // The consumer gives a token back for every item done: one is always coming while items are in flight.
            let _ = slot_rx.recv();
            // The workers stop only once this sender is dropped.
            let _ = work_tx.send((seq, item));
            seq += 1;
        });
        drop(work_tx);
        let panic = consumer.join().unwrap_or_else(Some);
        (produced, panic)
    });
    if let Some(payload) = panic {
        std::panic::resume_unwind(payload);
    }
    produced
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(workers: usize, count: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let produced = ordered_map(
            workers,
            |give| {
                for i in 0..count {
                    give(i);
                }
                count
            },
            |i: usize| {
                // Uneven work, so that results come back out of order.
                if i.is_multiple_of(3) {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                i * i
            },
            |square| out.push(square),
        );
        assert_eq!(produced, count);
        out
    }

    #[test]
    fn results_come_in_production_order_with_any_number_of_workers() {
        let expected: Vec<usize> = (0..200).map(|i| i * i).collect();
        for workers in [1, 2, 3, 8] {
            assert_eq!(squares(workers, 200), expected, "{workers} workers");
        }
        assert!(squares(4, 0).is_empty());
    }

    #[test]
    fn a_panicking_item_is_raised_on_the_caller_after_the_others() {
        let consumed = std::sync::atomic::AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ordered_map(
                2,
                |give| (0..50).for_each(give),
                |i: usize| {
                    assert!(i != 10, "item 10 fails");
                    i
                },
                |_| {
                    consumed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                },
            )
        }));
        assert!(outcome.is_err());
        assert_eq!(consumed.load(std::sync::atomic::Ordering::Relaxed), 49);
    }
}
