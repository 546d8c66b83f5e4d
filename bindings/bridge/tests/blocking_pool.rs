//! The bridge's pool of blocking handlers, in a process of its own: its limit is fixed by the
//! first call, which the bounded test of `server_client` sets.

use futures::executor::block_on;

#[test]
fn a_stuck_blocking_handler_does_not_hold_up_the_queue() {
    let (unblock, blocked) = std::sync::mpsc::channel::<()>();
    let stuck =
        mcpweft_bridge::spawn(async move { mcpweft_bridge::run_blocking(move || blocked.recv().is_ok()).await });
    let quick: Vec<_> = (0..200)
        .map(|i| mcpweft_bridge::spawn(async move { mcpweft_bridge::run_blocking(move || i * 2).await }))
        .collect();
    let answers: Vec<i32> = quick.into_iter().map(|task| block_on(task).unwrap()).collect();
    assert_eq!(answers, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    unblock.send(()).unwrap();
    assert!(block_on(stuck).unwrap());
    let panicked = block_on(mcpweft_bridge::spawn(async { mcpweft_bridge::run_blocking(|| panic!("sync bug")).await }));
    assert!(panicked.unwrap_err().message.contains("sync bug"));
}
