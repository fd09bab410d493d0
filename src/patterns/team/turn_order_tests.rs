use super::*;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::sleep;

/// Take a number for `lane` after `after` on the run clock; the number.
async fn numbered_after(order: Arc<TurnOrder>, lane: Lane, after: u64) -> u32 {
    sleep(Duration::from_millis(after)).await;
    order.number(lane).await.number
}

#[tokio::test(start_paused = true)]
async fn a_lane_that_asks_first_still_takes_its_number_after_the_lane_named_before_it() {
    let order = Arc::new(TurnOrder::default());
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 2, 256).collect();
    // The second call's turn is ready at once, the first's only later.
    let late = tokio::spawn(numbered_after(Arc::clone(&order), lanes[0], 500));
    let early = tokio::spawn(numbered_after(Arc::clone(&order), lanes[1], 0));
    assert_eq!((late.await.unwrap(), early.await.unwrap()), (1, 2));
}

#[tokio::test(start_paused = true)]
async fn side_by_side_lanes_number_their_turns_in_rounds_whatever_their_pace() {
    for (fast, slow) in [(10, 900), (900, 10)] {
        let order = Arc::new(TurnOrder::default());
        let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 2, 256).collect();
        let run = |lane, pace| {
            let order = Arc::clone(&order);
            tokio::spawn(async move {
                let mut numbers = Vec::new();
                for _ in 0..3 {
                    numbers.push(order.number(lane).await.number);
                    sleep(Duration::from_millis(pace)).await;
                }
                order.end(lane, false).await;
                numbers
            })
        };
        let (a, b) = (run(lanes[0], fast), run(lanes[1], slow));
        assert_eq!(a.await.unwrap(), [1, 3, 5], "paces {fast} and {slow}");
        assert_eq!(b.await.unwrap(), [2, 4, 6], "paces {fast} and {slow}");
        assert_eq!(order.number(SCENARIO_LANE).await.number, 7);
    }
}

#[tokio::test(start_paused = true)]
async fn a_lane_that_ended_holds_no_one_back_and_the_caller_comes_back_after_the_last() {
    let order = Arc::new(TurnOrder::default());
    assert_eq!(order.number(SCENARIO_LANE).await.number, 1);
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 2, 256).collect();
    assert_eq!(order.number(lanes[0]).await.number, 2);
    order.end(lanes[0], false).await;
    // The second call alone takes turn after turn.
    for expected in 3..6 {
        assert_eq!(order.number(lanes[1]).await.number, expected);
    }
    order.end(lanes[1], false).await;
    assert_eq!(order.number(SCENARIO_LANE).await.number, 6);
}

#[tokio::test(start_paused = true)]
async fn a_member_team_s_calls_take_their_caller_s_place_in_the_round() {
    let order = Arc::new(TurnOrder::default());
    let top: Vec<Lane> = order.call(SCENARIO_LANE, 2, 256).collect();
    assert_eq!(order.number(top[0]).await.number, 1);
    let inner: Vec<Lane> = order.call(top[0], 2, 256).collect();
    // The ring is now inner[0], inner[1], top[1], and this round's place is
    // the second top call's: then the first call's members, in the order
    // named whoever asks first, then the second top call again.
    assert_eq!(order.number(top[1]).await.number, 2);
    let again = tokio::spawn(numbered_after(Arc::clone(&order), top[1], 0));
    let b = tokio::spawn(numbered_after(Arc::clone(&order), inner[1], 100));
    let a = tokio::spawn(numbered_after(Arc::clone(&order), inner[0], 200));
    assert_eq!(
        (a.await.unwrap(), b.await.unwrap(), again.await.unwrap()),
        (3, 4, 5)
    );
}

#[tokio::test(start_paused = true)]
async fn a_waiting_call_starts_at_the_place_of_the_call_that_ended_in_order_not_first() {
    let order = Arc::new(TurnOrder::default());
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 3, 2).collect();
    assert_eq!(order.number(lanes[0]).await.number, 1);
    assert_eq!(order.number(lanes[1]).await.number, 2);
    // The second call is done first, but the place is the first call's:
    // the second's end waits for it.
    let second_ends = {
        let order = Arc::clone(&order);
        let lane = lanes[1];
        tokio::spawn(async move { order.end(lane, false).await })
    };
    sleep(Duration::from_millis(100)).await;
    assert!(!second_ends.is_finished());
    assert_eq!(order.end(lanes[0], false).await, Some(lanes[2]));
    // The third call starts in the first one's place, before the second
    // call's end comes round.
    assert_eq!(order.number(lanes[2]).await.number, 3);
    assert_eq!(second_ends.await.unwrap(), None);
    assert_eq!(order.number(lanes[2]).await.number, 4);
}

#[tokio::test(start_paused = true)]
async fn after_a_call_meets_a_stop_of_the_run_no_waiting_call_starts() {
    let order = Arc::new(TurnOrder::default());
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 4, 2).collect();
    assert_eq!(order.end(lanes[0], true).await, None);
    assert_eq!(order.end(lanes[1], false).await, None);
    assert_eq!(order.number(SCENARIO_LANE).await.number, 1);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_lane_leaves_at_once() {
    let order = Arc::new(TurnOrder::default());
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 2, 256).collect();
    order.leave(lanes[0]);
    assert_eq!(order.number(lanes[1]).await.number, 1);
}

#[tokio::test(start_paused = true)]
async fn a_turn_s_gate_is_passed_before_the_next_lane_s_turn_starts() {
    let order = Arc::new(TurnOrder::default());
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 2, 256).collect();
    let first = order.number(lanes[0]).await;
    let next = tokio::spawn(numbered_after(Arc::clone(&order), lanes[1], 0));
    sleep(Duration::from_millis(100)).await;
    assert!(!next.is_finished(), "the first turn still holds its gate");
    drop(first);
    assert_eq!(next.await.unwrap(), 2);
}

#[tokio::test(start_paused = true)]
async fn once_a_turn_meets_a_stop_of_the_run_no_call_starts_in_an_earlier_call_s_place() {
    let order = Arc::new(TurnOrder::default());
    let lanes: Vec<Lane> = order.call(SCENARIO_LANE, 4, 2).collect();
    assert_eq!(order.number(lanes[0]).await.number, 1);
    // The second call's turn is out of calls: the first call, which comes
    // before it in the round, ends after, and still starts none.
    order.number(lanes[1]).await.stop_run();
    assert_eq!(order.end(lanes[0], false).await, None);
    assert_eq!(order.end(lanes[1], true).await, None);
    assert_eq!(order.number(SCENARIO_LANE).await.number, 3);
}
