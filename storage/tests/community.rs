//! The store contract of polls, tournaments, whitelists, clans and the operator's account
//! changes, run against SQLite and PostgreSQL, each test on its own fresh database.

use std::sync::Arc;

use safezone_core::domain::{FriendCode, GameMode};
use safezone_core::starter::{self, STARTER_TOURNAMENT, Seeded};
use safezone_core::store::{
    Account, AccountChange, AccountId, ClanId, ClanLeft, ClanRefusal, Closing, NewClan, NewPoll,
    NewPollOption, NewTournament, NotOpen, PollId, Role, Store, TournamentCode, TournamentRefusal,
    Vote, VoteRefusal, WhitelistEdit,
};
use safezone_storage::test_support;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

safezone_storage::store_conformance!(
    roles_and_bans_change_and_report_unknown_accounts,
    polls_round_trip_and_count_votes,
    votes_check_account_window_and_option,
    concurrent_votes_of_one_account_count_once,
    polls_to_vote_leave_out_voted_closed_and_other_windows,
    tournaments_are_created_once_and_closed,
    joins_check_window_whitelist_and_duplicates,
    concurrent_joins_never_pass_capacity,
    whitelist_edits_report_unknown_codes_and_replace,
    clans_keep_one_clan_per_account_and_unique_tags,
    clan_invitations_and_joins,
    leaving_hands_the_clan_on_and_the_last_dissolves_it,
    deleting_the_leaders_account_hands_the_clan_on,
    clans_available_lists_own_and_inviting_or_largest,
    racing_departures_of_the_last_two_members_dissolve_the_clan,
    racing_departures_of_the_leader_and_a_member_hand_the_clan_on,
    a_join_racing_a_deletion_is_a_membership_or_refused,
    an_invite_racing_the_invitees_deletion_is_made_or_refused,
    a_whitelist_edit_racing_a_deletion_leaves_the_account_off,
    a_vote_racing_the_voters_deletion_counts_or_is_refused,
    deleting_an_entrants_account_frees_its_places,
    a_join_racing_the_joiners_deletion_takes_no_place,
    a_join_racing_an_entrants_deletion_takes_the_freed_place,
    racing_deletions_of_two_entrants_free_both_places,
    the_starter_community_is_seeded_once_however_many_nodes_start,
);

const NOW: OffsetDateTime = datetime!(2026-11-22 08:00:00 UTC);

fn hours(n: i64) -> Duration {
    Duration::hours(n)
}

/// A new device account with friend code `code`.
async fn account(store: &Arc<dyn Store>, code: &str) -> Account {
    test_support::new_account(store.as_ref(), code, NOW).await
}

/// `count` new accounts, `Player#0000` upwards.
async fn accounts(store: &Arc<dyn Store>, count: u16) -> Vec<Account> {
    let mut all = Vec::new();
    for n in 0..count {
        all.push(account(store, &format!("Player#{n:04}")).await);
    }
    all
}

/// Waits for every spawned store call, in order; they ran concurrently.
async fn finish<T>(
    tasks: Vec<tokio::task::JoinHandle<Result<T, safezone_core::store::StoreError>>>,
) -> Vec<T> {
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.expect("task").expect("no store error"));
    }
    outcomes
}

fn poll(question: &str, opens: OffsetDateTime, closes: OffsetDateTime) -> NewPoll {
    NewPoll {
        question: question.to_owned(),
        options: ["Red:#ff0000", "Blue:#0000ff"]
            .iter()
            .map(|text| {
                let (name, color) = text.split_once(':').expect("name:colour");
                NewPollOption {
                    name: name.to_owned(),
                    color_code: color.to_owned(),
                }
            })
            .collect(),
        opens,
        closes,
        now: NOW,
    }
}

fn code(text: &str) -> TournamentCode {
    TournamentCode::parse(text).expect("a valid tournament code")
}

fn tournament(text: &str, capacity: i64, whitelist_only: bool) -> NewTournament {
    NewTournament {
        code: code(text),
        mode: GameMode::parse("squad").expect("a mode"),
        opens: NOW - hours(1),
        closes: NOW + hours(1),
        capacity,
        whitelist_only,
        now: NOW,
    }
}

fn clan(creator: &Account, tag: &str) -> NewClan {
    NewClan {
        creator: creator.id,
        tag: tag.to_owned(),
        name: format!("The {tag}"),
        description: None,
        max_members: 3,
        now: NOW,
    }
}

async fn roles_and_bans_change_and_report_unknown_accounts(store: Arc<dyn Store>) {
    let ace = account(&store, "Ace#0001").await;
    assert!(store.set_role(ace.id, Role::Admin).await.expect("set role"));
    assert!(store.set_banned(ace.id, true, None).await.expect("ban"));
    let stored = store.account(ace.id).await.expect("read").expect("exists");
    assert_eq!((stored.role, stored.is_banned), (Role::Admin, true));
    assert!(
        store
            .set_role(ace.id, Role::Player)
            .await
            .expect("set role")
    );
    assert!(store.set_banned(ace.id, false, None).await.expect("unban"));
    let stored = store.account(ace.id).await.expect("read").expect("exists");
    assert_eq!((stored.role, stored.is_banned), (Role::Player, false));
    let nobody = AccountId(ace.id.0 + 1000);
    assert!(!store.set_role(nobody, Role::Admin).await.expect("set role"));
    assert!(!store.set_banned(nobody, true, None).await.expect("ban"));
}

async fn polls_round_trip_and_count_votes(store: Arc<dyn Store>) {
    let created = store
        .create_poll(poll("Colour?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll created");
    assert_eq!(created.question, "Colour?");
    let names: Vec<&str> = created.options.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["Red", "Blue"]);
    assert_eq!(created.options[0].color_code, "#ff0000");
    assert_eq!(created.window.opens, NOW - hours(1));
    assert_eq!(created.window.closed_at, None);

    let players = accounts(&store, 3).await;
    for (player, option) in players.iter().zip([1, 0, 1]) {
        let vote = Vote {
            account: player.id,
            poll: created.id,
            option: created.options[option].id,
            now: NOW,
        };
        assert_eq!(store.vote(vote).await.expect("vote"), Ok(()));
    }
    let results = store
        .poll_results(created.id)
        .await
        .expect("results")
        .expect("the poll exists");
    assert_eq!(results.poll, created);
    assert_eq!(results.votes, [1, 2]);
    assert_eq!(
        store
            .poll_results(PollId(created.id.0 + 100))
            .await
            .expect("results"),
        None
    );

    assert_eq!(
        store
            .close_poll(created.id, NOW, None)
            .await
            .expect("close"),
        Closing::Closed
    );
    assert_eq!(
        store
            .close_poll(created.id, NOW, None)
            .await
            .expect("close"),
        Closing::AlreadyClosed
    );
    assert_eq!(
        store
            .close_poll(PollId(created.id.0 + 100), NOW, None)
            .await
            .expect("close"),
        Closing::Unknown
    );
    let closed = store.poll_results(created.id).await.expect("results");
    assert_eq!(closed.and_then(|r| r.poll.window.closed_at), Some(NOW));
}

async fn votes_check_account_window_and_option(store: Arc<dyn Store>) {
    let open = store
        .create_poll(poll("Open?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll created");
    let other = store
        .create_poll(poll("Other?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll created");
    let ace = account(&store, "Ace#0001").await;
    let vote = |poll: &safezone_core::store::Poll, option: usize, now| Vote {
        account: ace.id,
        poll: poll.id,
        option: poll.options[option].id,
        now,
    };
    let refused = |result| match result {
        Ok(Err(refusal)) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    };

    let foreign = Vote {
        option: other.options[0].id,
        ..vote(&open, 0, NOW)
    };
    assert_eq!(
        refused(store.vote(foreign).await),
        VoteRefusal::UnknownOption
    );
    let unknown = Vote {
        poll: PollId(other.id.0 + 100),
        ..vote(&open, 0, NOW)
    };
    assert_eq!(refused(store.vote(unknown).await), VoteRefusal::UnknownPoll);
    assert_eq!(
        refused(store.vote(vote(&open, 0, NOW - hours(2))).await),
        VoteRefusal::NotOpen(NotOpen::Upcoming {
            opens: NOW - hours(1)
        })
    );
    assert_eq!(
        refused(store.vote(vote(&open, 0, NOW + hours(1))).await),
        VoteRefusal::NotOpen(NotOpen::Ended {
            closes: NOW + hours(1)
        })
    );

    store.set_banned(ace.id, true, None).await.expect("ban");
    assert_eq!(
        refused(store.vote(vote(&open, 0, NOW)).await),
        VoteRefusal::Banned
    );
    store.set_banned(ace.id, false, None).await.expect("unban");

    assert_eq!(store.vote(vote(&open, 1, NOW)).await.expect("vote"), Ok(()));
    assert_eq!(
        refused(store.vote(vote(&open, 0, NOW)).await),
        VoteRefusal::AlreadyVoted
    );
    let results = store.poll_results(open.id).await.expect("results");
    assert_eq!(results.map(|r| r.votes), Some(vec![0, 1]));

    store.close_poll(other.id, NOW, None).await.expect("close");
    assert_eq!(
        refused(store.vote(vote(&other, 0, NOW)).await),
        VoteRefusal::NotOpen(NotOpen::Closed { at: NOW })
    );
    store.delete_account(ace.id, None).await.expect("delete");
    assert_eq!(
        refused(store.vote(vote(&open, 0, NOW)).await),
        VoteRefusal::NoAccount
    );
    let results = store.poll_results(open.id).await.expect("results");
    assert_eq!(
        results.map(|r| r.votes),
        Some(vec![0, 0]),
        "a deleted account's vote goes with it"
    );
}

async fn concurrent_votes_of_one_account_count_once(store: Arc<dyn Store>) {
    let created = store
        .create_poll(poll("Once?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll created");
    let ace = account(&store, "Ace#0001").await;
    let votes = (0..20).map(|n| {
        let store = Arc::clone(&store);
        let vote = Vote {
            account: ace.id,
            poll: created.id,
            option: created.options[n % 2].id,
            now: NOW,
        };
        tokio::spawn(async move { store.vote(vote).await })
    });
    let outcomes = finish(votes.collect()).await;
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1);
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Ok(()) | Err(VoteRefusal::AlreadyVoted)))
    );
    let results = store.poll_results(created.id).await.expect("results");
    assert_eq!(results.map(|r| r.votes.iter().sum::<i64>()), Some(1));
}

async fn polls_to_vote_leave_out_voted_closed_and_other_windows(store: Arc<dyn Store>) {
    let voted = store
        .create_poll(poll("Voted?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll");
    let open = store
        .create_poll(poll("Open?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll");
    let closed = store
        .create_poll(poll("Closed?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll");
    store
        .create_poll(poll("Later?", NOW + hours(1), NOW + hours(2)), None)
        .await
        .expect("poll");
    store
        .create_poll(poll("Over?", NOW - hours(2), NOW), None)
        .await
        .expect("poll");
    store.close_poll(closed.id, NOW, None).await.expect("close");
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0001").await;
    let vote = Vote {
        account: ace.id,
        poll: voted.id,
        option: voted.options[0].id,
        now: NOW,
    };
    assert_eq!(store.vote(vote).await.expect("vote"), Ok(()));

    let for_ace = store.polls_to_vote(ace.id, NOW).await.expect("polls");
    assert_eq!(for_ace, std::slice::from_ref(&open));
    let for_bee: Vec<PollId> = store
        .polls_to_vote(bee.id, NOW)
        .await
        .expect("polls")
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(for_bee, [voted.id, open.id]);
}

async fn tournaments_are_created_once_and_closed(store: Arc<dyn Store>) {
    assert!(
        store
            .create_tournament(tournament("Spring-Cup", 10, true), None)
            .await
            .expect("create")
    );
    assert!(
        !store
            .create_tournament(tournament("spring-cup", 5, false), None)
            .await
            .expect("create"),
        "the code is taken, in any letter case"
    );
    let stored = store
        .tournament(&code("SPRING-CUP"))
        .await
        .expect("read")
        .expect("exists");
    assert_eq!(stored.code.as_str(), "spring-cup");
    assert_eq!(stored.mode, GameMode::parse("squad").expect("a mode"));
    assert_eq!((stored.capacity, stored.entrants), (10, 0));
    assert!(stored.whitelist_only);
    assert_eq!(stored.window.opens, NOW - hours(1));
    assert_eq!(store.tournament(&code("nope")).await.expect("read"), None);

    assert_eq!(
        store
            .close_tournament(&code("spring-cup"), NOW, None)
            .await
            .expect("close"),
        Closing::Closed
    );
    assert_eq!(
        store
            .close_tournament(&code("spring-cup"), NOW, None)
            .await
            .expect("close"),
        Closing::AlreadyClosed
    );
    assert_eq!(
        store
            .close_tournament(&code("nope"), NOW, None)
            .await
            .expect("close"),
        Closing::Unknown
    );
}

async fn joins_check_window_whitelist_and_duplicates(store: Arc<dyn Store>) {
    store
        .create_tournament(tournament("listed", 2, true), None)
        .await
        .expect("create");
    let [ace, bee, cat, dog] = ["Ace#0001", "Bee#0001", "Cat#0001", "Dog#0001"];
    let (ace, bee, cat, dog) = (
        account(&store, ace).await,
        account(&store, bee).await,
        account(&store, cat).await,
        account(&store, dog).await,
    );
    let listed = code("listed");
    let join = |account: AccountId, now| {
        let store = Arc::clone(&store);
        let listed = listed.clone();
        async move {
            store
                .join_tournament(&listed, account, now)
                .await
                .expect("no store error")
        }
    };
    assert_eq!(
        join(ace.id, NOW).await,
        Err(TournamentRefusal::NotWhitelisted)
    );
    let edit = WhitelistEdit {
        code: listed.clone(),
        replace: false,
        add: vec![
            ace.friend_code.clone(),
            bee.friend_code.clone(),
            cat.friend_code.clone(),
            dog.friend_code.clone(),
        ],
        remove: Vec::new(),
        now: NOW,
    };
    store.edit_whitelist(edit, None).await.expect("edit");
    assert_eq!(
        join(ace.id, NOW - hours(2)).await,
        Err(TournamentRefusal::NotOpen(NotOpen::Upcoming {
            opens: NOW - hours(1)
        }))
    );
    assert_eq!(
        join(ace.id, NOW + hours(1)).await,
        Err(TournamentRefusal::NotOpen(NotOpen::Ended {
            closes: NOW + hours(1)
        }))
    );
    store.set_banned(dog.id, true, None).await.expect("ban");
    assert_eq!(join(dog.id, NOW).await, Err(TournamentRefusal::Banned));

    let joined = join(ace.id, NOW).await.expect("ace joins");
    assert_eq!(joined.entrants, 1);
    assert_eq!(
        join(ace.id, NOW).await,
        Err(TournamentRefusal::AlreadyJoined)
    );
    let standing = store
        .tournament_standing(&listed, ace.id)
        .await
        .expect("standing");
    assert!(standing.joined && standing.whitelisted);
    assert_eq!(join(bee.id, NOW).await.map(|t| t.entrants), Ok(2));
    assert_eq!(
        join(cat.id, NOW).await,
        Err(TournamentRefusal::Full { capacity: 2 })
    );
    assert_eq!(
        join(ace.id, NOW).await,
        Err(TournamentRefusal::AlreadyJoined),
        "an entrant is told it joined, also when full"
    );
    let stored = store.tournament(&listed).await.expect("read");
    assert_eq!(stored.map(|t| t.entrants), Some(2));

    store
        .close_tournament(&listed, NOW, None)
        .await
        .expect("close");
    assert_eq!(
        join(cat.id, NOW).await,
        Err(TournamentRefusal::NotOpen(NotOpen::Closed { at: NOW }))
    );
    let unknown = store
        .join_tournament(&code("nope"), cat.id, NOW)
        .await
        .expect("no store error");
    assert_eq!(unknown, Err(TournamentRefusal::Unknown));
}

async fn concurrent_joins_never_pass_capacity(store: Arc<dyn Store>) {
    store
        .create_tournament(tournament("rush", 10, false), None)
        .await
        .expect("create");
    let players = accounts(&store, 30).await;
    let joins = players.iter().flat_map(|player| {
        // Each player tries twice at once: a double join must not take a second place.
        [player.id, player.id].map(|id| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.join_tournament(&code("rush"), id, NOW).await })
        })
    });
    let outcomes = finish(joins.collect()).await;
    assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 10);
    assert!(outcomes.iter().all(|o| matches!(
        o,
        Ok(_) | Err(TournamentRefusal::Full { .. } | TournamentRefusal::AlreadyJoined)
    )));
    let stored = store.tournament(&code("rush")).await.expect("read");
    assert_eq!(stored.map(|t| t.entrants), Some(10));
}

async fn whitelist_edits_report_unknown_codes_and_replace(store: Arc<dyn Store>) {
    store
        .create_tournament(tournament("listed", 5, true), None)
        .await
        .expect("create");
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0001").await;
    let ghost = FriendCode::parse("Ghost#0001").expect("valid");
    let listed = code("listed");
    let edit = |replace, add: Vec<FriendCode>, remove: Vec<FriendCode>| WhitelistEdit {
        code: listed.clone(),
        replace,
        add,
        remove,
        now: NOW,
    };
    let lower_ace = FriendCode::parse("ACE#0001").expect("valid");
    let edited = store
        .edit_whitelist(
            edit(
                false,
                vec![
                    lower_ace,
                    ghost.clone(),
                    bee.friend_code.clone(),
                    ghost.clone(),
                ],
                Vec::new(),
            ),
            None,
        )
        .await
        .expect("edit")
        .expect("the tournament exists");
    assert_eq!(
        edited.whitelist,
        [ace.friend_code.clone(), bee.friend_code.clone()]
    );
    assert_eq!(edited.unknown, std::slice::from_ref(&ghost));

    let edited = store
        .edit_whitelist(
            edit(false, Vec::new(), vec![ace.friend_code.clone(), ghost]),
            None,
        )
        .await
        .expect("edit")
        .expect("the tournament exists");
    assert_eq!(edited.whitelist, std::slice::from_ref(&bee.friend_code));
    assert_eq!(edited.unknown.len(), 1);

    let edited = store
        .edit_whitelist(edit(true, vec![ace.friend_code.clone()], Vec::new()), None)
        .await
        .expect("edit")
        .expect("the tournament exists");
    assert_eq!(edited.whitelist, std::slice::from_ref(&ace.friend_code));
    assert_eq!(
        store.whitelist(&listed).await.expect("read"),
        Some(vec![ace.friend_code.clone()])
    );
    assert_eq!(store.whitelist(&code("nope")).await.expect("read"), None);
    let missing = WhitelistEdit {
        code: code("nope"),
        ..edit(false, vec![ace.friend_code.clone()], Vec::new())
    };
    assert_eq!(
        store.edit_whitelist(missing, None).await.expect("edit"),
        None
    );
}

async fn clans_keep_one_clan_per_account_and_unique_tags(store: Arc<dyn Store>) {
    let ace = account(&store, "Ace#0001").await;
    let bee = account(&store, "Bee#0001").await;
    let created = store
        .create_clan(NewClan {
            description: Some("We win.".to_owned()),
            ..clan(&ace, "Abc")
        })
        .await
        .expect("no store error")
        .expect("created");
    assert_eq!(created.tag, "Abc");
    assert_eq!(created.name, "The Abc");
    assert_eq!(created.description.as_deref(), Some("We win."));
    assert_eq!(created.creator, ace.id);
    assert_eq!(created.max_members, 3);
    assert_eq!(created.created, NOW);
    assert_eq!(created.members.len(), 1);
    assert_eq!(created.members[0].account, ace.id);
    assert_eq!(created.members[0].friend_code, ace.friend_code);
    assert_eq!(created.members[0].status, "offline");

    let refused = |result: Result<Result<_, ClanRefusal>, _>| match result {
        Ok(Err(refusal)) => refusal,
        Ok(Ok(clan)) => panic!("expected a refusal, got {clan:?}"),
        Err(error) => panic!("store error {error}"),
    };
    assert_eq!(
        refused(store.create_clan(clan(&bee, "ABC")).await),
        ClanRefusal::TagTaken
    );
    assert_eq!(
        refused(store.create_clan(clan(&ace, "Xyz")).await),
        ClanRefusal::AlreadyInClan
    );
    store.set_banned(bee.id, true, None).await.expect("ban");
    assert_eq!(
        refused(store.create_clan(clan(&bee, "Xyz")).await),
        ClanRefusal::Banned
    );
    assert_eq!(
        store.clan_of(ace.id).await.expect("read"),
        Some(created.clone())
    );
    assert_eq!(store.clan_of(bee.id).await.expect("read"), None);
}

async fn clan_invitations_and_joins(store: Arc<dyn Store>) {
    let [ace, bee, cat, dog, eel] = ["Ace#0001", "Bee#0001", "Cat#0001", "Dog#0001", "Eel#0001"];
    let ace = account(&store, ace).await;
    let bee = account(&store, bee).await;
    let cat = account(&store, cat).await;
    let dog = account(&store, dog).await;
    let eel = account(&store, eel).await;
    let abc = store
        .create_clan(clan(&ace, "Abc"))
        .await
        .expect("no store error")
        .expect("created")
        .id;
    let invite = |inviter: AccountId, invitee: AccountId| {
        let store = Arc::clone(&store);
        async move {
            store
                .invite_to_clan(abc, inviter, invitee, NOW)
                .await
                .expect("no store error")
        }
    };
    let join = |account: AccountId| {
        let store = Arc::clone(&store);
        async move {
            store
                .join_clan(abc, account, NOW)
                .await
                .expect("no store error")
        }
    };
    assert_eq!(join(bee.id).await, Err(ClanRefusal::NotInvited));
    assert_eq!(invite(bee.id, cat.id).await, Err(ClanRefusal::NotMember));
    assert_eq!(
        invite(ace.id, AccountId(eel.id.0 + 100)).await,
        Err(ClanRefusal::UnknownUser)
    );
    assert_eq!(
        invite(ace.id, ace.id).await,
        Err(ClanRefusal::AlreadyMember)
    );
    assert_eq!(invite(ace.id, bee.id).await, Ok(()));
    assert_eq!(
        invite(ace.id, bee.id).await,
        Err(ClanRefusal::AlreadyInvited)
    );
    let unknown = store
        .invite_to_clan(
            safezone_core::store::ClanId(abc.0 + 100),
            ace.id,
            bee.id,
            NOW,
        )
        .await
        .expect("no store error");
    assert_eq!(unknown, Err(ClanRefusal::UnknownClan));

    let joined = join(bee.id).await.expect("bee joins");
    let members: Vec<AccountId> = joined.members.iter().map(|m| m.account).collect();
    assert_eq!(members, [ace.id, bee.id]);
    assert_eq!(join(bee.id).await, Err(ClanRefusal::AlreadyInClan));

    // Members invite too; the clan holds at most 3.
    assert_eq!(invite(bee.id, cat.id).await, Ok(()));
    assert_eq!(invite(bee.id, dog.id).await, Ok(()));
    join(cat.id).await.expect("cat joins");
    assert_eq!(join(dog.id).await, Err(ClanRefusal::Full));

    // A member of another clan may be invited, but joins only after leaving it.
    store
        .create_clan(clan(&eel, "Eel"))
        .await
        .expect("no store error")
        .expect("created");
    store
        .leave_clan(abc, cat.id, NOW)
        .await
        .expect("no store error")
        .expect("cat leaves");
    assert_eq!(invite(ace.id, eel.id).await, Ok(()));
    assert_eq!(join(eel.id).await, Err(ClanRefusal::AlreadyInClan));
    store.set_banned(dog.id, true, None).await.expect("ban");
    assert_eq!(join(dog.id).await, Err(ClanRefusal::Banned));
}

async fn leaving_hands_the_clan_on_and_the_last_dissolves_it(store: Arc<dyn Store>) {
    let players = accounts(&store, 3).await;
    let abc = clan_of_players(&store, &players, "Abc").await;
    let leave = |account: AccountId| {
        let store = Arc::clone(&store);
        async move {
            store
                .leave_clan(abc, account, NOW)
                .await
                .expect("no store error")
        }
    };
    assert_eq!(leave(players[0].id).await, Ok(ClanLeft::Left));
    assert_eq!(leave(players[0].id).await, Err(ClanRefusal::NotMember));
    let clan = store
        .clan_of(players[1].id)
        .await
        .expect("read")
        .expect("still a clan");
    assert_eq!(
        clan.creator, players[1].id,
        "the longest-standing member leads"
    );
    assert_eq!(clan.members.len(), 2);
    assert_eq!(leave(players[2].id).await, Ok(ClanLeft::Left));
    assert_eq!(leave(players[1].id).await, Ok(ClanLeft::Dissolved));
    assert_eq!(leave(players[1].id).await, Err(ClanRefusal::UnknownClan));
    assert_eq!(store.clan_of(players[1].id).await.expect("read"), None);
    // The tag is free again.
    store
        .create_clan(self::clan(&players[2], "ABC"))
        .await
        .expect("no store error")
        .expect("created again");
}

async fn deleting_the_leaders_account_hands_the_clan_on(store: Arc<dyn Store>) {
    let players = accounts(&store, 2).await;
    let abc = store
        .create_clan(clan(&players[0], "Abc"))
        .await
        .expect("no store error")
        .expect("created")
        .id;
    store
        .invite_to_clan(abc, players[0].id, players[1].id, NOW)
        .await
        .expect("no store error")
        .expect("invited");
    store
        .join_clan(abc, players[1].id, NOW)
        .await
        .expect("no store error")
        .expect("joined");
    store
        .delete_account(players[0].id, None)
        .await
        .expect("deleted");
    let clan = store
        .clan_of(players[1].id)
        .await
        .expect("read")
        .expect("still a clan");
    assert_eq!(clan.creator, players[1].id);
    assert_eq!(clan.members.len(), 1);
    store
        .delete_account(players[1].id, None)
        .await
        .expect("deleted");
    let available = store.clans_available(None, 100).await.expect("read");
    assert!(available.is_empty(), "the clan is dissolved: {available:?}");
}

async fn clans_available_lists_own_and_inviting_or_largest(store: Arc<dyn Store>) {
    let players = accounts(&store, 5).await;
    let mut ids = Vec::new();
    for (player, tag) in players.iter().zip(["Aaa", "Bbb", "Ccc"]) {
        let created = store
            .create_clan(clan(player, tag))
            .await
            .expect("no store error")
            .expect("created");
        ids.push(created.id);
    }
    // Ccc grows to two members; player 3 is invited to Aaa and Ccc, player 4 to nothing.
    store
        .invite_to_clan(ids[2], players[2].id, players[3].id, NOW)
        .await
        .expect("no store error")
        .expect("invited");
    store
        .join_clan(ids[2], players[3].id, NOW)
        .await
        .expect("no store error")
        .expect("joined");
    store
        .invite_to_clan(ids[0], players[0].id, players[3].id, NOW)
        .await
        .expect("no store error")
        .expect("invited");

    let largest: Vec<_> = store
        .clans_available(None, 2)
        .await
        .expect("read")
        .iter()
        .map(|c| (c.id, c.members.len()))
        .collect();
    assert_eq!(largest, [(ids[2], 2), (ids[0], 1)]);
    let for_member: Vec<_> = store
        .clans_available(Some(players[3].id), 100)
        .await
        .expect("read")
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(for_member, [ids[2], ids[0]], "its own clan first");
    let for_loner = store
        .clans_available(Some(players[4].id), 100)
        .await
        .expect("read");
    assert!(for_loner.is_empty());
}

/// How many times each race below is run: every try races the same operations afresh.
const TRIES: u16 = 16;

/// How a member goes in the races below.
#[derive(Debug, Clone, Copy)]
enum Departure {
    Leave,
    Delete,
}

/// The departures the races combine, cycled through by the tries.
const DEPARTURES: [(Departure, Departure); 3] = [
    (Departure::Delete, Departure::Delete),
    (Departure::Leave, Departure::Delete),
    (Departure::Delete, Departure::Leave),
];

/// A three-letter tag of its own for race try `n`.
fn race_tag(n: u16) -> String {
    let letter = |k: u16| char::from(b'a' + u8::try_from(k % 26).expect("a letter"));
    format!("Q{}{}", letter(n / 26), letter(n))
}

/// A clan tagged `tag` led by `players[0]`, the others joining in order.
async fn clan_of_players(store: &Arc<dyn Store>, players: &[Account], tag: &str) -> ClanId {
    let id = store
        .create_clan(NewClan {
            max_members: 10,
            ..clan(&players[0], tag)
        })
        .await
        .expect("no store error")
        .expect("created")
        .id;
    for player in &players[1..] {
        store
            .invite_to_clan(id, players[0].id, player.id, NOW)
            .await
            .expect("no store error")
            .expect("invited");
        store
            .join_clan(id, player.id, NOW)
            .await
            .expect("no store error")
            .expect("joined");
    }
    id
}

/// Starts the member's departure from the clan; it answers once it is done, refusing nothing.
fn depart(
    store: &Arc<dyn Store>,
    clan: ClanId,
    member: AccountId,
    how: Departure,
) -> tokio::task::JoinHandle<Result<(), safezone_core::store::StoreError>> {
    let store = Arc::clone(store);
    tokio::spawn(async move {
        match how {
            Departure::Leave => {
                let left = store.leave_clan(clan, member, NOW).await?;
                assert!(left.is_ok(), "a member leaves: {left:?}");
            }
            Departure::Delete => {
                assert!(
                    store.delete_account(member, None).await?,
                    "the account existed"
                );
            }
        }
        Ok(())
    })
}

/// Deletes the account in a task of its own.
fn delete(
    store: &Arc<dyn Store>,
    account: AccountId,
) -> tokio::task::JoinHandle<Result<bool, safezone_core::store::StoreError>> {
    let store = Arc::clone(store);
    tokio::spawn(async move { store.delete_account(account, None).await })
}

/// Asserts that no clan holds `tag` any more: `founder` founds one with it (then leaves it).
async fn assert_tag_free(store: &Arc<dyn Store>, founder: &Account, tag: &str) {
    let refounded = store
        .create_clan(clan(founder, tag))
        .await
        .expect("no store error")
        .unwrap_or_else(|refusal| panic!("tag {tag} is still held: {refusal:?}"));
    let left = store
        .leave_clan(refounded.id, founder.id, NOW)
        .await
        .expect("no store error");
    assert_eq!(left, Ok(ClanLeft::Dissolved));
}

/// Asserts that every account of `deleted` has exactly one deletion in the account log.
async fn assert_deletions_logged(store: &Arc<dyn Store>, deleted: &[AccountId]) {
    let log = store.account_log(0, 10_000).await.expect("read");
    for account in deleted {
        let deletions = log
            .iter()
            .filter(|entry| entry.account == *account && entry.change == AccountChange::Deleted)
            .count();
        assert_eq!(deletions, 1, "the deletion of {account:?} is logged once");
    }
}

/// The last two members leave or delete their accounts at once: the clan is dissolved, its
/// tag free again, and every deletion logged.
async fn racing_departures_of_the_last_two_members_dissolve_the_clan(store: Arc<dyn Store>) {
    let founder = account(&store, "Founder#0001").await;
    let mut deleted = Vec::new();
    for n in 0..TRIES {
        let pair = [
            account(&store, &format!("Lead#{n:04}")).await,
            account(&store, &format!("Mate#{n:04}")).await,
        ];
        let tag = race_tag(n);
        let clan = clan_of_players(&store, &pair, &tag).await;
        let (first, second) = DEPARTURES[usize::from(n) % DEPARTURES.len()];
        finish(vec![
            depart(&store, clan, pair[0].id, first),
            depart(&store, clan, pair[1].id, second),
        ])
        .await;
        for (player, how) in pair.iter().zip([first, second]) {
            assert_eq!(store.clan_of(player.id).await.expect("read"), None);
            if matches!(how, Departure::Delete) {
                deleted.push(player.id);
            }
        }
        assert_tag_free(&store, &founder, &tag).await;
    }
    assert_deletions_logged(&store, &deleted).await;
}

/// The leader and one member of three leave or delete their accounts at once: the third
/// member is left alone in the clan, leading it.
async fn racing_departures_of_the_leader_and_a_member_hand_the_clan_on(store: Arc<dyn Store>) {
    for n in 0..TRIES {
        let trio = [
            account(&store, &format!("Lead#{n:04}")).await,
            account(&store, &format!("Mate#{n:04}")).await,
            account(&store, &format!("Stay#{n:04}")).await,
        ];
        let clan = clan_of_players(&store, &trio, &race_tag(n)).await;
        let (first, second) = DEPARTURES[usize::from(n) % DEPARTURES.len()];
        finish(vec![
            depart(&store, clan, trio[0].id, first),
            depart(&store, clan, trio[1].id, second),
        ])
        .await;
        let kept = store
            .clan_of(trio[2].id)
            .await
            .expect("read")
            .expect("the clan goes on");
        assert_eq!(kept.creator, trio[2].id, "the one left leads");
        let members: Vec<_> = kept.members.iter().map(|m| m.account).collect();
        assert_eq!(members, [trio[2].id]);
    }
}

/// An invited player joins while the clan's only member, or the joiner, deletes the account:
/// an answered join is a membership of a clan led by a living member; a refused one leaves
/// the joiner (if any) in no clan.
async fn a_join_racing_a_deletion_is_a_membership_or_refused(store: Arc<dyn Store>) {
    let founder = account(&store, "Founder#0001").await;
    for n in 0..TRIES {
        let lead = account(&store, &format!("Lead#{n:04}")).await;
        let joiner = account(&store, &format!("Join#{n:04}")).await;
        let tag = race_tag(n);
        let clan = clan_of_players(&store, std::slice::from_ref(&lead), &tag).await;
        store
            .invite_to_clan(clan, lead.id, joiner.id, NOW)
            .await
            .expect("no store error")
            .expect("invited");
        let deleting_leader = n % 2 == 0;
        let (gone, stays) = if deleting_leader {
            (&lead, &joiner)
        } else {
            (&joiner, &lead)
        };
        let joining = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.join_clan(clan, joiner.id, NOW).await })
        };
        let deleting = delete(&store, gone.id);
        let joined = joining.await.expect("task").expect("no store error");
        assert!(deleting.await.expect("task").expect("no store error"));
        let kept = store.clan_of(stays.id).await.expect("read");
        match (joined, deleting_leader) {
            (Ok(_), _) => {
                let kept = kept.expect("an answered join is a membership");
                assert_eq!(kept.creator, stays.id, "the one left leads");
                let members: Vec<_> = kept.members.iter().map(|m| m.account).collect();
                assert_eq!(members, [stays.id]);
            }
            (Err(ClanRefusal::UnknownClan), true) => {
                assert_eq!(kept, None, "a refused join is no membership");
                assert_tag_free(&store, &founder, &tag).await;
            }
            (Err(ClanRefusal::NoAccount), false) => {
                let kept = kept.expect("the leader's clan goes on");
                let members: Vec<_> = kept.members.iter().map(|m| m.account).collect();
                assert_eq!((kept.creator, members), (lead.id, vec![lead.id]));
            }
            (other, _) => panic!("unexpected join answer {other:?}"),
        }
    }
}

/// A member invites a player while the player deletes the account: the invitation is made
/// (and goes with the account) or refused as for an unknown user, never a store error.
async fn an_invite_racing_the_invitees_deletion_is_made_or_refused(store: Arc<dyn Store>) {
    let lead = account(&store, "Lead#0001").await;
    let clan = clan_of_players(&store, std::slice::from_ref(&lead), "Inv").await;
    for n in 0..TRIES {
        let invitee = account(&store, &format!("Invitee#{n:04}")).await;
        let inviting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.invite_to_clan(clan, lead.id, invitee.id, NOW).await })
        };
        let deleting = delete(&store, invitee.id);
        let invited = inviting.await.expect("task").expect("no store error");
        assert!(deleting.await.expect("task").expect("no store error"));
        assert!(
            matches!(invited, Ok(()) | Err(ClanRefusal::UnknownUser)),
            "unexpected invite answer {invited:?}"
        );
    }
    let kept = store.clan_of(lead.id).await.expect("read").expect("kept");
    assert_eq!(kept.members.len(), 1);
}

/// An operator replaces a whitelist with two players while one of them deletes the account:
/// the edit reports the deleted one unknown or adds it (and the deletion takes it off), never
/// a store error; the other stays on.
async fn a_whitelist_edit_racing_a_deletion_leaves_the_account_off(store: Arc<dyn Store>) {
    store
        .create_tournament(tournament("listed", 5, true), None)
        .await
        .expect("create");
    let stays = account(&store, "Stays#0001").await;
    for n in 0..TRIES {
        let goes = account(&store, &format!("Goes#{n:04}")).await;
        let edit = WhitelistEdit {
            code: code("listed"),
            replace: true,
            add: vec![goes.friend_code.clone(), stays.friend_code.clone()],
            remove: Vec::new(),
            now: NOW,
        };
        let editing = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.edit_whitelist(edit, None).await })
        };
        let deleting = delete(&store, goes.id);
        let edited = editing
            .await
            .expect("task")
            .expect("no store error")
            .expect("the tournament exists");
        assert!(deleting.await.expect("task").expect("no store error"));
        if edited.unknown.is_empty() {
            // Added at one instant, they are listed by account id.
            assert_eq!(
                edited.whitelist,
                [stays.friend_code.clone(), goes.friend_code]
            );
        } else {
            assert_eq!(edited.unknown, [goes.friend_code]);
            assert_eq!(edited.whitelist, std::slice::from_ref(&stays.friend_code));
        }
        assert_eq!(
            store.whitelist(&code("listed")).await.expect("read"),
            Some(vec![stays.friend_code.clone()])
        );
    }
}

/// A player votes while deleting the account: the vote is counted (and goes with the account)
/// or refused as from a missing account, never a store error; no vote is left behind.
async fn a_vote_racing_the_voters_deletion_counts_or_is_refused(store: Arc<dyn Store>) {
    let open = store
        .create_poll(poll("Race?", NOW - hours(1), NOW + hours(1)), None)
        .await
        .expect("poll created");
    for n in 0..TRIES {
        let voter = account(&store, &format!("Voter#{n:04}")).await;
        let vote = Vote {
            account: voter.id,
            poll: open.id,
            option: open.options[0].id,
            now: NOW,
        };
        let voting = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.vote(vote).await })
        };
        let deleting = delete(&store, voter.id);
        let voted = voting.await.expect("task").expect("no store error");
        assert!(deleting.await.expect("task").expect("no store error"));
        assert!(
            matches!(voted, Ok(()) | Err(VoteRefusal::NoAccount)),
            "unexpected vote answer {voted:?}"
        );
    }
    let results = store.poll_results(open.id).await.expect("read");
    assert_eq!(results.map(|r| r.votes), Some(vec![0, 0]));
}

/// A deleted account's entries go with it and free their places, in open, full and closed
/// tournaments alike: the count always matches the entries.
async fn deleting_an_entrants_account_frees_its_places(store: Arc<dyn Store>) {
    for (text, capacity) in [("full", 1), ("roomy", 5), ("ended", 5)] {
        store
            .create_tournament(tournament(text, capacity, false), None)
            .await
            .expect("create");
    }
    let [gone, stays, next] = ["Gone#0001", "Stays#0001", "Next#0001"];
    let (gone, stays, next) = (
        account(&store, gone).await,
        account(&store, stays).await,
        account(&store, next).await,
    );
    let join = |text: &str, account: AccountId| {
        let store = Arc::clone(&store);
        let code = code(text);
        async move {
            store
                .join_tournament(&code, account, NOW)
                .await
                .expect("no store error")
                .map(|joined| joined.entrants)
        }
    };
    assert_eq!(join("full", gone.id).await, Ok(1));
    assert_eq!(join("roomy", gone.id).await, Ok(1));
    assert_eq!(join("roomy", stays.id).await, Ok(2));
    assert_eq!(join("ended", gone.id).await, Ok(1));
    store
        .close_tournament(&code("ended"), NOW, None)
        .await
        .expect("close");
    assert_eq!(
        join("full", next.id).await,
        Err(TournamentRefusal::Full { capacity: 1 })
    );

    assert!(store.delete_account(gone.id, None).await.expect("delete"));
    for (text, entrants) in [("full", 0), ("roomy", 1), ("ended", 0)] {
        let stored = store.tournament(&code(text)).await.expect("read");
        assert_eq!(stored.map(|t| t.entrants), Some(entrants), "{text}");
    }
    assert_eq!(
        join("full", next.id).await,
        Ok(1),
        "the freed place is taken"
    );
    let standing = store
        .tournament_standing(&code("roomy"), stays.id)
        .await
        .expect("read");
    assert!(standing.joined, "the other entrant stays");
}

/// How many entrants a tournament counts, read from the database.
async fn entrants(store: &Arc<dyn Store>, text: &str) -> i64 {
    store
        .tournament(&code(text))
        .await
        .expect("read")
        .expect("the tournament exists")
        .entrants
}

/// A player joins a tournament while deleting the account: the join is made (and its place
/// freed by the deletion) or refused as from a missing account, never a store error; no place
/// stays taken.
async fn a_join_racing_the_joiners_deletion_takes_no_place(store: Arc<dyn Store>) {
    store
        .create_tournament(tournament("rush", 100, false), None)
        .await
        .expect("create");
    for n in 0..TRIES {
        let joiner = account(&store, &format!("Joiner#{n:04}")).await;
        let joining = {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.join_tournament(&code("rush"), joiner.id, NOW).await })
        };
        let deleting = delete(&store, joiner.id);
        let joined = joining.await.expect("task").expect("no store error");
        assert!(deleting.await.expect("task").expect("no store error"));
        assert!(
            matches!(joined, Ok(_) | Err(TournamentRefusal::NoAccount)),
            "unexpected join answer {joined:?}"
        );
        assert_eq!(entrants(&store, "rush").await, 0, "try {n}");
    }
}

/// A player joins a full tournament of one place while its entrant deletes the account: the
/// join is refused as full (before the deletion) or takes the freed place, and the count
/// matches the entries.
async fn a_join_racing_an_entrants_deletion_takes_the_freed_place(store: Arc<dyn Store>) {
    for n in 0..TRIES {
        let text = format!("solo-{n}");
        store
            .create_tournament(tournament(&text, 1, false), None)
            .await
            .expect("create");
        let entrant = account(&store, &format!("Entrant#{n:04}")).await;
        let joiner = account(&store, &format!("Joiner#{n:04}")).await;
        store
            .join_tournament(&code(&text), entrant.id, NOW)
            .await
            .expect("no store error")
            .expect("the entrant joins");
        let joining = {
            let store = Arc::clone(&store);
            let code = code(&text);
            tokio::spawn(async move { store.join_tournament(&code, joiner.id, NOW).await })
        };
        let deleting = delete(&store, entrant.id);
        let joined = joining.await.expect("task").expect("no store error");
        assert!(deleting.await.expect("task").expect("no store error"));
        let standing = store
            .tournament_standing(&code(&text), joiner.id)
            .await
            .expect("read");
        match joined {
            Ok(tournament) => {
                assert_eq!(tournament.entrants, 1);
                assert!(standing.joined);
                assert_eq!(entrants(&store, &text).await, 1);
            }
            Err(TournamentRefusal::Full { capacity: 1 }) => {
                assert!(!standing.joined);
                assert_eq!(entrants(&store, &text).await, 0);
            }
            other => panic!("unexpected join answer {other:?}"),
        }
    }
}

/// Two entrants of the same two tournaments (joined in opposite orders) delete their accounts
/// at once: both deletions end, neither deadlocked, and every place is free again.
async fn racing_deletions_of_two_entrants_free_both_places(store: Arc<dyn Store>) {
    for n in 0..TRIES {
        let texts = [format!("first-{n}"), format!("second-{n}")];
        for text in &texts {
            store
                .create_tournament(tournament(text, 2, false), None)
                .await
                .expect("create");
        }
        let pair = [
            account(&store, &format!("Ace#{n:04}")).await,
            account(&store, &format!("Bee#{n:04}")).await,
        ];
        for (player, order) in pair.iter().zip([[0, 1], [1, 0]]) {
            for index in order {
                store
                    .join_tournament(&code(&texts[index]), player.id, NOW)
                    .await
                    .expect("no store error")
                    .expect("joins");
            }
        }
        let deleted = finish(vec![delete(&store, pair[0].id), delete(&store, pair[1].id)]).await;
        assert_eq!(deleted, [true, true]);
        for text in &texts {
            assert_eq!(entrants(&store, text).await, 0, "{text}");
        }
    }
}

/// Eight nodes starting at once on one fresh database: one seeds the poll and the tournament,
/// the others find them; a poll is open to vote now and the tournament opens later.
async fn the_starter_community_is_seeded_once_however_many_nodes_start(store: Arc<dyn Store>) {
    let modes = safezone_core::content::Content::shipped().modes;
    let seeds =
        futures_util::future::join_all((0..8).map(|_| starter::seed(store.as_ref(), &modes, NOW)))
            .await;
    let created = seeds
        .iter()
        .filter(|seeded| matches!(seeded, Ok(Seeded::Created)))
        .count();
    assert_eq!(created, 1, "{seeds:?}");
    assert!(seeds.iter().all(Result::is_ok), "{seeds:?}");
    assert_eq!(
        starter::seed(store.as_ref(), &modes, NOW + hours(1))
            .await
            .expect("seed"),
        Seeded::AlreadyThere
    );
    let voter = account(&store, "Voter#0001").await;
    let polls = store.polls_to_vote(voter.id, NOW).await.expect("polls");
    assert_eq!(polls.len(), 1, "{polls:?}");
    let cup = store
        .tournament(&code(STARTER_TOURNAMENT))
        .await
        .expect("read")
        .expect("the starter tournament");
    assert!(cup.window.opens > NOW && !cup.whitelist_only, "{cup:?}");
}
