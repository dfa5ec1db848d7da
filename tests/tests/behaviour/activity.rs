//! The activity rollup runs in every service: a new player's sign-in through the public API
//! reaches the hourly counters and the players listed by last sign-in within seconds, without
//! anyone asking.

use std::time::Duration;

use safezone_core::activity::window;
use safezone_core::store::{ActivityMetric, Bucket, PlayerListing};
use safezone_tests::{TestApp, each_combination};

each_combination!(a_sign_in_is_counted_by_the_services_rollup);

async fn a_sign_in_is_counted_by_the_services_rollup(app: TestApp) {
    let (_, body) = app.new_device().await;
    let code = body["user"]["friend_code"]
        .as_str()
        .expect("a friend code")
        .to_owned();
    let (from, until) = window(Bucket::Hour, 1, app.now());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let listed = app
            .store
            .players(&PlayerListing::LastSignIn, None, 10)
            .await
            .expect("listed");
        let counted = app
            .store
            .activity(ActivityMetric::SignIns, Bucket::Hour, from, until)
            .await
            .expect("read");
        let listed_codes: Vec<String> = listed
            .players
            .iter()
            .map(|player| player.friend_code.to_string())
            .collect();
        if listed_codes == [code.clone()]
            && counted.iter().map(|point| point.value).sum::<i64>() == 1
        {
            assert_eq!(listed.players[0].last_sign_in, Some(app.now()));
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not counted within 10 s: {listed_codes:?}, {counted:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
