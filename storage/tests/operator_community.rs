//! The store contract of what the operator API reads and edits of polls, tournaments and the
//! published content: the newest polls and tournaments, edits with their refusals, a
//! tournament's entrants, the published versions. Run against SQLite and PostgreSQL, each test
//! on its own fresh database.

use std::sync::Arc;

use safezone_core::domain::GameMode;
use safezone_core::store::{
    Account, NewPoll, NewPollOption, NewTournament, NotOpen, PollEdit, PollEditRefusal, PollId,
    Publication, Store, TournamentCode, TournamentEdit, TournamentEditRefusal, Vote,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    polls_are_listed_newest_first_with_their_votes,
    polls_are_edited_until_they_end,
    tournaments_are_listed_the_last_created_first,
    tournaments_are_edited_within_their_rules,
    entrants_are_listed_in_the_order_they_joined,
    content_versions_are_listed_newest_first,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00:00 UTC);

fn hours(n: i64) -> Duration {
    Duration::hours(n)
}

async fn account(store: &Arc<dyn Store>, code: &str) -> Account {
    test_support::new_account(store.as_ref(), code, NOW).await
}

fn poll(question: &str) -> NewPoll {
    let option = |name: &str, color: &str| NewPollOption {
        name: name.to_owned(),
        color_code: color.to_owned(),
    };
    NewPoll {
        question: question.to_owned(),
        options: vec![option("Red", "#ff0000"), option("Blue", "#0000ff")],
        opens: NOW - hours(1),
        closes: NOW + hours(1),
        now: NOW,
    }
}

fn code(text: &str) -> TournamentCode {
    TournamentCode::parse(text).expect("a valid tournament code")
}

fn tournament(text: &str, opens: OffsetDateTime, now: OffsetDateTime) -> NewTournament {
    NewTournament {
        code: code(text),
        mode: GameMode::parse("squad").expect("a mode"),
        opens,
        closes: opens + hours(2),
        capacity: 10,
        whitelist_only: false,
        now,
    }
}

fn no_edit(text: &str, now: OffsetDateTime) -> TournamentEdit {
    TournamentEdit {
        code: code(text),
        mode: None,
        opens: None,
        closes: None,
        capacity: None,
        whitelist_only: None,
        now,
    }
}

async fn polls_are_listed_newest_first_with_their_votes(store: Arc<dyn Store>) {
    assert!(store.polls(10).await.expect("list").is_empty());
    let first = store
        .create_poll(poll("First?"), None)
        .await
        .expect("create");
    let second = store
        .create_poll(poll("Second?"), None)
        .await
        .expect("create");
    let voter = account(&store, "Ace#0001").await;
    let vote = Vote {
        account: voter.id,
        poll: first.id,
        option: first.options[1].id,
        now: NOW,
    };
    store.vote(vote).await.expect("vote").expect("counted");

    let listed = store.polls(10).await.expect("list");
    let ids: Vec<PollId> = listed.iter().map(|results| results.poll.id).collect();
    assert_eq!(ids, [second.id, first.id]);
    assert_eq!(listed[1].poll, first);
    assert_eq!(listed[1].votes, [0, 1]);
    assert_eq!(listed[0].votes, [0, 0]);
    let newest = store.polls(1).await.expect("list");
    assert_eq!(newest.len(), 1);
    assert_eq!(newest[0].poll.id, second.id);
}

async fn polls_are_edited_until_they_end(store: Arc<dyn Store>) {
    let created = store
        .create_poll(poll("Colour?"), None)
        .await
        .expect("create");
    let edit = PollEdit {
        poll: created.id,
        question: Some("Favourite colour?".to_owned()),
        closes: Some(NOW + hours(5)),
        now: NOW,
    };
    let edited = store
        .edit_poll(edit.clone(), None)
        .await
        .expect("edit")
        .expect("edited");
    assert_eq!(edited.question, "Favourite colour?");
    assert_eq!(edited.window.closes, NOW + hours(5));
    let stored = store
        .poll_results(created.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(stored.poll, edited);
    assert_eq!(stored.poll.options, created.options);

    let too_early = PollEdit {
        closes: Some(NOW - hours(2)),
        ..edit.clone()
    };
    assert!(matches!(
        store.edit_poll(too_early, None).await.expect("edit"),
        Err(PollEditRefusal::ClosesTooEarly { earliest }) if earliest == NOW
    ));
    let unknown = PollEdit {
        poll: PollId(987_654),
        ..edit.clone()
    };
    assert_eq!(
        store.edit_poll(unknown, None).await.expect("edit"),
        Err(PollEditRefusal::Unknown)
    );
    store
        .close_poll(created.id, NOW, None)
        .await
        .expect("close");
    assert_eq!(
        store.edit_poll(edit, None).await.expect("edit"),
        Err(PollEditRefusal::Over(NotOpen::Closed { at: NOW }))
    );
    let after = store
        .poll_results(created.id)
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(
        after.poll.question, "Favourite colour?",
        "refusals change nothing"
    );
    assert_eq!(after.poll.window.closes, NOW + hours(5));
}

async fn tournaments_are_listed_the_last_created_first(store: Arc<dyn Store>) {
    assert!(store.tournaments(10).await.expect("list").is_empty());
    for (text, created) in [("early", NOW), ("late", NOW + hours(1))] {
        let new = tournament(text, NOW + hours(3), created);
        assert!(store.create_tournament(new, None).await.expect("create"));
    }
    let listed = store.tournaments(10).await.expect("list");
    let codes: Vec<&str> = listed.iter().map(|t| t.code.as_str()).collect();
    assert_eq!(codes, ["late", "early"]);
    assert_eq!(listed[1].window.opens, NOW + hours(3));
    assert_eq!(store.tournaments(1).await.expect("list").len(), 1);
}

async fn tournaments_are_edited_within_their_rules(store: Arc<dyn Store>) {
    let opens = NOW + hours(1);
    assert!(
        store
            .create_tournament(tournament("cup", opens, NOW), None)
            .await
            .expect("create")
    );
    let edit = TournamentEdit {
        mode: Some(GameMode::parse("duo").expect("a mode")),
        capacity: Some(4),
        whitelist_only: Some(true),
        ..no_edit("cup", NOW)
    };
    let edited = store
        .edit_tournament(edit, None)
        .await
        .expect("edit")
        .expect("edited");
    assert_eq!(
        (edited.mode, edited.capacity, edited.whitelist_only),
        (GameMode::parse("duo").expect("a mode"), 4, true)
    );
    let stored = store
        .tournament(&code("cup"))
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(stored, edited);

    let open = opens + hours(1);
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0001").await;
    let whitelist = safezone_core::store::WhitelistEdit {
        code: code("cup"),
        replace: false,
        add: vec![ace.friend_code.clone(), bee.friend_code.clone()],
        remove: Vec::new(),
        now: NOW,
    };
    store
        .edit_whitelist(whitelist, None)
        .await
        .expect("whitelist");
    for player in [&ace, &bee] {
        store
            .join_tournament(&code("cup"), player.id, open)
            .await
            .expect("join")
            .expect("joined");
    }
    let refused = |edit: TournamentEdit| {
        let store = Arc::clone(&store);
        async move { store.edit_tournament(edit, None).await.expect("edit") }
    };
    let mode = TournamentEdit {
        mode: Some(GameMode::parse("solo").expect("a mode")),
        ..no_edit("cup", open)
    };
    assert_eq!(
        refused(mode).await,
        Err(TournamentEditRefusal::Started { field: "mode" })
    );
    let smaller = TournamentEdit {
        capacity: Some(1),
        ..no_edit("cup", open)
    };
    assert_eq!(
        refused(smaller).await,
        Err(TournamentEditRefusal::BelowEntrants { entrants: 2 })
    );
    let past = TournamentEdit {
        closes: Some(open - Duration::minutes(1)),
        ..no_edit("cup", open)
    };
    assert_eq!(refused(past).await, Err(TournamentEditRefusal::BadWindow));
    assert_eq!(
        refused(no_edit("nope", open)).await,
        Err(TournamentEditRefusal::Unknown)
    );
    let longer = TournamentEdit {
        closes: Some(open + hours(5)),
        capacity: Some(2),
        ..no_edit("cup", open)
    };
    let edited = refused(longer).await.expect("edited");
    assert_eq!((edited.capacity, edited.entrants), (2, 2));
    assert_eq!(edited.window.closes, open + hours(5));
    let ended = TournamentEdit {
        capacity: Some(3),
        ..no_edit("cup", open + hours(6))
    };
    assert!(matches!(
        refused(ended).await,
        Err(TournamentEditRefusal::Over(NotOpen::Ended { .. }))
    ));
}

async fn entrants_are_listed_in_the_order_they_joined(store: Arc<dyn Store>) {
    assert_eq!(
        store
            .tournament_entrants(&code("nope"))
            .await
            .expect("read"),
        None
    );
    assert!(
        store
            .create_tournament(tournament("cup", NOW - hours(1), NOW), None)
            .await
            .expect("create")
    );
    assert_eq!(
        store.tournament_entrants(&code("cup")).await.expect("read"),
        Some(Vec::new())
    );
    let bee = account(&store, "Bee#0001").await;
    let ace = account(&store, "Ace#0001").await;
    for (player, at) in [(&bee, NOW), (&ace, NOW + Duration::minutes(1))] {
        store
            .join_tournament(&code("cup"), player.id, at)
            .await
            .expect("join")
            .expect("joined");
    }
    let entrants = store
        .tournament_entrants(&code("cup"))
        .await
        .expect("read")
        .expect("the tournament exists");
    let listed: Vec<_> = entrants
        .iter()
        .map(|entrant| (entrant.friend_code.to_string(), entrant.joined))
        .collect();
    assert_eq!(
        listed,
        [
            ("Bee#0001".to_owned(), NOW),
            ("Ace#0001".to_owned(), NOW + Duration::minutes(1)),
        ]
    );
}

async fn content_versions_are_listed_newest_first(store: Arc<dyn Store>) {
    assert!(store.content_versions(10).await.expect("list").is_empty());
    let about = |n: i64| Publication {
        by: (n > 0).then(|| format!("token-{n}")),
        reason: (n > 0).then(|| format!("reason {n}")),
        restores: (n == 2).then_some(1),
    };
    for n in 0..3 {
        store
            .publish_content(&format!("# version {n}"), &about(n), NOW + hours(n), None)
            .await
            .expect("publish");
    }
    let listed = store.content_versions(2).await.expect("list");
    let versions: Vec<(i64, OffsetDateTime, Publication)> = listed
        .into_iter()
        .map(|published| (published.version, published.published_at, published.about))
        .collect();
    assert_eq!(
        versions,
        [(3, NOW + hours(2), about(2)), (2, NOW + hours(1), about(1))]
    );
    let first = store
        .published_content(1)
        .await
        .expect("read")
        .expect("there");
    assert_eq!(first.about, Publication::default());
    let third = store
        .published_content(3)
        .await
        .expect("read")
        .expect("there");
    assert_eq!(
        (third.text.as_str(), third.about),
        ("# version 2", about(2))
    );
}
