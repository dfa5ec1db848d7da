//! Tests of what repeats: seasons (tracks), deals, the limited event and the season preview, as
//! the file writes them and as the shipped file ships them.

use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::testing::{MINIMAL, assert_refused, parse, with_shop};
use super::{Content, OCCURRENCE_ID_STRIDE, SHIPPED};
use crate::domain::{ChallengeId, DealId, EvolutionId, TrackId};
use crate::economy::{Purchase, deal_claim_key, plan_purchase};
use crate::store::Step;

/// A sixteen-week season from Sunday 2026-11-01, every sixteen weeks.
const SEASON: &str = r#"
[[tracks]]
id = 2
name = "Season {season} Pass"
season = 1
cost_gems = 950
cost_gems_per_tier = 150
max_level = 10
experience_per_level = 1000
stars_per_level = 5
max_tier = 1
stars_per_tier = 10
starts = 2026-11-01T00:00:00Z
ends = 2027-02-21T00:00:00Z
repeat_weeks = 16
tiers = [{ tier = 1, rewards = [{ type = "coins", quantity = 200 }] }]

[tracks.discount]
cost_gems = 750
ends = 2027-01-01T00:00:00Z

[[tracks.challenges]]
id = 5
name = "Get 25 kills"
stat_key = "kills"
required = 25
stars = 5

[[tracks.evolutions]]
id = 7
required_item = "outfit-ranger"
name = "Ranger: Gold"
stat_key = "kills"
required = 100
reward = { type = "coins", quantity = 100 }
"#;

/// Every 37 hours for ten years from the shipped file's first season.
fn dates_for_ten_years() -> impl Iterator<Item = OffsetDateTime> {
    let first = datetime!(2026-11-01 00:00 UTC);
    (0..)
        .map(move |step| first + Duration::hours(37 * step))
        .take_while(move |date| *date < first + Duration::days(3653))
}

#[test]
fn a_later_season_is_a_new_track_with_new_ids_dates_and_number() {
    let content = parse(&with_shop(SEASON));
    let now = datetime!(2027-03-10 12:00 UTC);
    let running: Vec<_> = content.tracks_at(now).collect();
    let [second] = running.as_slice() else {
        panic!("one run at {now}: {running:?}")
    };
    assert_eq!(second.id, TrackId(OCCURRENCE_ID_STRIDE + 2));
    assert_eq!(second.season, 2);
    assert_eq!(second.occurrence, 1);
    assert_eq!(second.shown_name(), "Season 2 Pass");
    assert_eq!(second.starts, datetime!(2027-02-21 00:00 UTC));
    assert_eq!(second.ends, datetime!(2027-06-13 00:00 UTC));
    let discount = second.discount.expect("each run has its discount");
    assert_eq!(
        discount.ends,
        datetime!(2027-01-01 00:00 UTC) + Duration::weeks(16)
    );
    assert_eq!(
        second.challenges[0].id,
        ChallengeId(OCCURRENCE_ID_STRIDE + 5)
    );
    assert_eq!(
        second.evolutions[0].id,
        EvolutionId(OCCURRENCE_ID_STRIDE + 7)
    );
    let found = content.track(second.id).expect("found by its id");
    assert_eq!(*found, **second);
}

#[test]
fn the_first_season_keeps_the_written_id_and_a_track_that_does_not_repeat_has_no_later_run() {
    let content = parse(&with_shop(SEASON));
    let first: Vec<_> = content.tracks_at(datetime!(2026-12-01 00:00 UTC)).collect();
    assert_eq!(first[0].id, TrackId(2));
    assert_eq!(first[0].shown_name(), "Season 1 Pass");
    let once = parse(&with_shop(&SEASON.replacen("repeat_weeks = 16\n", "", 1)));
    assert!(once.track(TrackId(2)).is_some());
    assert!(once.track(TrackId(OCCURRENCE_ID_STRIDE + 2)).is_none());
    assert!(once.track(TrackId(-OCCURRENCE_ID_STRIDE + 2)).is_none());
    assert_eq!(once.tracks_at(datetime!(2027-03-10 12:00 UTC)).count(), 0);
}

#[test]
fn repeats_are_checked_with_their_lines() {
    assert_refused(
        &with_shop(&SEASON.replacen("repeat_weeks = 16", "repeat_weeks = 15", 1)),
        "repeat_weeks = 15",
        "tracks[0].repeat_weeks",
        "runs would overlap",
    );
    assert_refused(
        &with_shop(&SEASON.replacen("repeat_weeks = 16", "repeat_weeks = 0", 1)),
        "repeat_weeks = 0",
        "tracks[0].repeat_weeks",
        "write 1 to 520",
    );
    assert_refused(
        &with_shop(&SEASON.replacen("id = 2\n", "id = 1000002\n", 1)),
        "id = 1000002",
        "tracks[0].id",
        "write 1 to 999999",
    );
    let event = format!(
        "{MINIMAL}\n[extras.limited_event]\nname = \"Storm\"\ntype = \"limited\"\ntagline = \"t\"\n\
         ends = 2026-11-16T00:00:00Z\nrepeat_weeks = 2\n"
    );
    assert_refused(
        &event,
        "repeat_weeks = 2",
        "extras.limited_event.repeat_weeks",
        "needs `starts`",
    );
    let preview = format!(
        "{}\n[extras.season_preview]\ntrack = 2\nseason = 7\n",
        with_shop(SEASON)
    );
    assert_refused(
        &preview,
        "season = 7",
        "extras.season_preview.season",
        "leave out season",
    );
    let missing = format!("{MINIMAL}\n[extras.season_preview]\ntrack = 9\n");
    assert_refused(
        &missing,
        "track = 9",
        "extras.season_preview.track",
        "there is no reward track 9",
    );
}

#[test]
fn a_preview_of_a_track_shows_the_season_running_and_its_end() {
    let content = parse(&format!(
        "{}\n[extras.season_preview]\ntrack = 2\n",
        with_shop(SEASON)
    ));
    let preview = content.extras.season_preview.expect("a preview");
    let before = preview.at(datetime!(2026-10-01 00:00 UTC)).unwrap();
    assert_eq!(
        (before.season, before.starts),
        (1, datetime!(2026-11-01 00:00 UTC))
    );
    let third = preview.at(datetime!(2027-07-01 00:00 UTC)).unwrap();
    assert_eq!(third.season, 3);
    assert_eq!(third.starts, datetime!(2027-06-13 00:00 UTC));
    assert_eq!(third.timer_ends, datetime!(2027-10-03 00:00 UTC));
}

#[test]
fn a_written_preview_repeats_with_one_more_season_each_run() {
    let content = parse(&format!(
        "{MINIMAL}\n[extras.season_preview]\nseason = 7\nstarts = 2026-12-01T00:00:00Z\n\
         timer_ends = 2027-02-28T23:59:59Z\nrepeat_weeks = 13\n"
    ));
    let preview = content.extras.season_preview.expect("a preview");
    let later = preview.at(datetime!(2027-03-05 00:00 UTC)).unwrap();
    assert_eq!(later.season, 8);
    assert_eq!(
        later.starts,
        datetime!(2026-12-01 00:00 UTC) + Duration::weeks(13)
    );
    let once = parse(&format!(
        "{MINIMAL}\n[extras.season_preview]\nseason = 7\nstarts = 2026-12-01T00:00:00Z\n\
         timer_ends = 2027-02-28T23:59:59Z\n"
    ));
    assert!(
        once.extras
            .season_preview
            .unwrap()
            .at(datetime!(2027-03-05 00:00 UTC))
            .is_none()
    );
}

#[test]
fn the_shipped_file_runs_a_season_a_deal_and_an_event_on_every_date_for_ten_years() {
    let content = Content::parse(SHIPPED, "shipped").unwrap();
    let preview = content.extras.season_preview.as_ref().expect("a preview");
    let event = content.extras.limited_event.as_ref().expect("an event");
    for now in dates_for_ten_years() {
        let seasons: Vec<_> = content.tracks_at(now).collect();
        let free = seasons
            .iter()
            .find(|track| track.is_stock)
            .unwrap_or_else(|| panic!("no free track at {now}"));
        assert!(
            seasons.iter().any(|track| !track.is_stock),
            "no pass at {now}"
        );
        let shown = preview.at(now).expect("a preview at every date");
        assert_eq!(
            shown.season, free.season,
            "the preview follows the season at {now}"
        );
        assert_eq!(shown.timer_ends, free.ends);
        assert!(
            content
                .catalog
                .timed_deals
                .iter()
                .any(|deal| deal.running_at(now).is_some()),
            "no deal at {now}"
        );
        assert!(event.shown_until(now).is_some(), "no event at {now}");
    }
}

#[test]
fn each_run_of_a_deal_is_bought_once_within_its_own_window() {
    let content = Content::parse(SHIPPED, "shipped").unwrap();
    let deal = content.catalog.timed_deal(DealId(1)).unwrap();
    let first = deal.running_at(datetime!(2026-11-10 00:00 UTC)).unwrap();
    let fourth = deal.running_at(datetime!(2027-02-10 00:00 UTC)).unwrap();
    assert_eq!(deal_claim_key(deal.id, &first), "deal/1");
    assert_eq!(deal_claim_key(deal.id, &fourth), "deal/1/3");
    let planned = plan_purchase(
        &content.catalog,
        Purchase::Deal(deal.id),
        1,
        datetime!(2027-02-10 00:00 UTC),
    )
    .unwrap();
    assert_eq!(
        planned.steps[0],
        Step::RequireWindow {
            starts: fourth.starts,
            ends: fourth.ends,
        }
    );
    assert!(planned.steps.contains(&Step::Claim {
        keys: vec!["deal/1/3".to_owned()],
    }));
}

#[test]
fn the_shipped_welcome_buys_a_chest_and_a_rename_and_matches_pay_for_chests() {
    let content = Content::parse(SHIPPED, "shipped").unwrap();
    let welcome = &content.reward_types[0];
    assert_eq!(welcome.name, "first");
    let (mut coins, mut gems) = (0, 0);
    for reward in &welcome.rewards {
        match reward {
            super::RewardSpec::Coins(amount) => coins += amount,
            super::RewardSpec::Gems(amount) => gems += amount,
            _ => {}
        }
    }
    let rename = content.friend_code.rename_cost_gems;
    let chest_for_coins = content
        .catalog
        .packs
        .iter()
        .filter(|pack| pack.is_for_sale() && pack.price.gems == 0)
        .map(|pack| pack.price.coins)
        .min()
        .expect("a chest sold for coins");
    assert!(
        coins >= chest_for_coins && gems >= rename,
        "welcome {coins} coins, {gems} gems; chest {chest_for_coins} coins, rename {rename} gems"
    );
    // A middling game (placement 40, 1 kill, 8 minutes alive): a chest within seven games.
    let per_game = content.progression.match_coins.for_result(40, 1, 8 * 60);
    assert!(
        per_game * 7 >= chest_for_coins,
        "{per_game} coins a game, chest {chest_for_coins}"
    );
}
