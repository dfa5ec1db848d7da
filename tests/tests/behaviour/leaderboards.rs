//! `GET /api/leaderboard/live` and its alias `/api/leaderboard`: the top rows of the board of a
//! mode, a rolling window and a category, best first, with ties sharing a rank, and the caller's
//! own row; live on the next request after a report, a rename, a deletion; banned players off
//! the boards; bad values refused naming the parameter.
//!
//! Expected rows are computed by [`Played`] from the lines each test reported; each test also
//! states the order it expects by hand.

use safezone_core::clock::Clock;
use safezone_core::store::AccountId;
use safezone_tests::community::Player;
use safezone_tests::leaderboard::{
    CATEGORIES, Played, TOP_ROWS, WINDOWS, codes, encoded, into_matches, lines_summing, query,
    ranks, ratio, window_length, with_float_ratios,
};
use safezone_tests::mode;
use safezone_tests::progression::Line;
use safezone_tests::{TestApp, each_combination};
use serde_json::{Value, json};
use time::Duration;

each_combination!(
    an_empty_board_and_the_defaults,
    a_report_shows_on_the_next_request,
    each_category_orders_its_board,
    ties_share_a_rank_and_older_accounts_come_first,
    ratio_boards_rank_by_the_rounded_value,
    ratio_boards_need_ten_rounds,
    the_callers_row_has_its_rank_beyond_the_top_rows,
    modes_are_separate_boards,
    windows_roll_with_the_clock,
    a_window_ends_exactly_its_length_after_the_match,
    bad_parameters_are_400_naming_the_parameter,
    a_bad_user_key_is_401,
    renames_show_on_the_next_request,
    deleted_accounts_leave_every_board,
    banned_accounts_leave_the_boards_until_unbanned,
);

/// The friend codes of `players`, as the boards show them.
fn codes_of(players: &[&Player]) -> Vec<String> {
    players
        .iter()
        .map(|player| player.friend_code.to_string())
        .collect()
}

/// The key and id of a player, as the board helpers take a caller.
fn caller(player: &Player) -> Option<(&str, AccountId)> {
    Some((player.key.as_str(), player.id))
}

/// With no parameter a board is solo, all time, wins; `/api/leaderboard` answers the same as
/// `/api/leaderboard/live`, and an empty board is `players: []`, `user: null`.
async fn an_empty_board_and_the_defaults(app: TestApp) {
    let mut played = Played::new();
    let [winner, other, squad, killer, caller_player]: [Player; 5] = app
        .joined_all(&mut played, 5)
        .await
        .try_into()
        .expect("five players");
    let empty = json!({"status": "success", "players": [], "user": null});
    for path in ["/api/leaderboard/live", "/api/leaderboard"] {
        assert_eq!(app.get(path).await.success(), &empty, "{path}");
        let with_key = format!("{path}?userKey={}", caller_player.key);
        assert_eq!(app.get(&with_key).await.success(), &empty, "{with_key}");
    }

    // Solo: `other` wins twice, `winner` once, `killer` kills most but never wins; `squad`
    // plays squad only and wins most there.
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(winner.id, 1, 3, 900),
            Line::new(killer.id, 2, 40, 800),
            Line::new(caller_player.id, 30, 0, 100),
        ],
    )
    .await;
    for _ in 0..2 {
        app.report_now(
            &mut played,
            mode("solo"),
            vec![
                Line::new(other.id, 1, 1, 600),
                Line::new(killer.id, 3, 30, 500),
            ],
        )
        .await;
    }
    for _ in 0..3 {
        app.report_now(
            &mut played,
            mode("squad"),
            vec![Line::new(squad.id, 1, 9, 1000)],
        )
        .await;
    }

    let now = app.clock.now();
    let expected = played.answer(mode("solo"), "all", "wins", now, None);
    assert_eq!(
        codes(&expected),
        codes_of(&[&other, &winner, &killer, &caller_player]),
        "the model's solo wins order"
    );
    assert_eq!(expected["players"][0]["wins"], 2);
    for path in [
        "/api/leaderboard/live",
        "/api/leaderboard",
        "/api/leaderboard/live?mode=solo",
        "/api/leaderboard?time=all",
        "/api/leaderboard/live?category=wins",
        "/api/leaderboard?mode=solo&time=all&category=wins",
    ] {
        let body = with_float_ratios(app.get(path).await.success());
        assert_eq!(body, expected, "{path}");
    }
    let with_caller = played.answer(mode("solo"), "all", "wins", now, Some(caller_player.id));
    // The caller ties with `killer` at 0 wins: they share rank 3, the older account first.
    assert_eq!(with_caller["user"]["rank"], 3);
    for path in ["/api/leaderboard/live", "/api/leaderboard"] {
        let path = format!("{path}?userKey={}", caller_player.key);
        let body = with_float_ratios(app.get(&path).await.success());
        assert_eq!(body, with_caller, "{path}");
    }
    // The alias takes every parameter the same way.
    for window in WINDOWS {
        for category in CATEGORIES {
            let query = query(mode("squad"), window, category, Some(&caller_player.key));
            let live = with_float_ratios(app.board_answer(&query).await.success());
            let alias = with_float_ratios(
                app.get(&format!("/api/leaderboard?{query}"))
                    .await
                    .success(),
            );
            assert_eq!(alias, live, "{query}");
            assert_eq!(
                live,
                played.answer(mode("squad"), window, category, now, Some(caller_player.id))
            );
        }
    }

    // Over a year later only `all` still holds the matches: the default window is all time.
    app.clock.advance(Duration::days(400));
    let now = app.clock.now();
    let expected = played.answer(mode("solo"), "all", "wins", now, None);
    assert_eq!(expected["players"].as_array().map(Vec::len), Some(4));
    for path in ["/api/leaderboard/live", "/api/leaderboard"] {
        assert_eq!(with_float_ratios(app.get(path).await.success()), expected);
        let year = format!("{path}?time=1y");
        assert_eq!(app.get(&year).await.success(), &empty, "{year}");
    }
}

/// A reported match shows on the very next request, in every board it touches.
async fn a_report_shows_on_the_next_request(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 3).await;
    let (first, second, third) = (&players[0], &players[1], &players[2]);
    app.assert_board(&played, mode("solo"), "24h", "kills", caller(first))
        .await;
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(second.id, 1, 12, 1800),
            Line::new(first.id, 2, 4, 1700),
        ],
    )
    .await;
    let body = app
        .board(&query(mode("solo"), "24h", "kills", Some(&first.key)))
        .await;
    assert_eq!(codes(&body), codes_of(&[second, first]));
    assert_eq!(body["user"]["rank"], 2);
    assert_eq!(body["user"]["kills"], 4);
    app.assert_every_board(&played, caller(first)).await;

    // A second match adds to the first at once.
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(first.id, 1, 20, 2000),
            Line::new(third.id, 5, 1, 300),
        ],
    )
    .await;
    let body = app
        .board(&query(mode("solo"), "24h", "kills", Some(&first.key)))
        .await;
    assert_eq!(codes(&body), codes_of(&[first, second, third]));
    assert_eq!(body["players"][0]["kills"], 24);
    assert_eq!(body["players"][0]["rounds"], 2);
    assert_eq!(body["user"]["rank"], 1);
    app.assert_every_board(&played, caller(first)).await;
}

/// Four players whose results rank them in a different order on each of the seven boards;
/// every row field is checked.
async fn each_category_orders_its_board(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 4).await;
    let [a, b, c, d] = [&players[0], &players[1], &players[2], &players[3]];
    // (rounds, wins, top10, kills, time_alive)
    let sums = [
        (a, (10, 3, 5, 10, 1000)),
        (b, (12, 4, 9, 30, 5000)),
        (c, (20, 5, 6, 70, 3000)),
        (d, (11, 1, 2, 40, 2000)),
    ];
    let lines: Vec<Vec<Line>> = sums
        .iter()
        .map(|(player, (rounds, wins, top10, kills, time))| {
            lines_summing(player.id, *rounds, *wins, *top10, *kills, *time)
        })
        .collect();
    for lines in into_matches(&lines) {
        app.report_now(&mut played, mode("solo"), lines).await;
    }

    let orders: [(&str, [&Player; 4]); 7] = [
        ("wins", [c, b, a, d]),
        ("kills", [c, d, b, a]),
        ("kills_per_round", [d, c, b, a]),
        ("winrate", [b, a, c, d]),
        ("time_alive", [b, c, d, a]),
        ("rounds", [c, b, d, a]),
        ("top10", [b, c, a, d]),
    ];
    for (category, order) in orders {
        let body = app.board(&query(mode("solo"), "all", category, None)).await;
        assert_eq!(codes(&body), codes_of(&order), "{category}");
        assert_eq!(ranks(&body), [json!(1), json!(2), json!(3), json!(4)]);
        assert_eq!(body["user"], Value::Null);
        assert_eq!(
            body,
            played.answer(mode("solo"), "all", category, app.now(), None)
        );
    }
    // Spot checks of the derived values, written out.
    let winrate = app
        .board(&query(mode("solo"), "all", "winrate", None))
        .await;
    let first = &winrate["players"][0];
    assert_eq!(
        *first,
        json!({
            "rank": 1,
            "name": b.friend_code.name(),
            "friend_code": b.friend_code.to_string(),
            "rounds": 12,
            "wins": 4,
            "top10": 9,
            "winrate": 0.3333,
            "kills": 30,
            "kills_per_round": 2.5,
            "time_alive": 5000,
        })
    );
    let per_round = app
        .board(&query(mode("solo"), "all", "kills_per_round", None))
        .await;
    assert_eq!(per_round["players"][0]["kills_per_round"], json!(3.6364));
    assert_eq!(per_round["players"][0]["winrate"], json!(0.0909));
    assert_eq!(per_round["players"][1]["kills_per_round"], json!(3.5));

    // Each player's own row carries its rank on every board.
    for player in [a, b, c, d] {
        for category in CATEGORIES {
            let body = app
                .board(&query(mode("solo"), "all", category, Some(&player.key)))
                .await;
            let own = body["players"]
                .as_array()
                .and_then(|rows| {
                    rows.iter()
                        .find(|row| row["friend_code"] == player.friend_code.to_string())
                })
                .cloned()
                .expect("the player is listed");
            assert_eq!(body["user"], own, "{category}");
        }
    }
    app.assert_every_board(&played, caller(a)).await;
}

/// Equal scores share a rank (1, 2, 2, 2, 5) and are ordered by account id, older first,
/// whatever order their results came in.
async fn ties_share_a_rank_and_older_accounts_come_first(app: TestApp) {
    let mut played = Played::new();
    let p = app.joined_all(&mut played, 5).await;
    // Wins: p3 2, p4 1, p2 1, p1 1 (reported in that order), p0 none.
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(p[4].id, 1, 3, 600),
            Line::new(p[3].id, 1, 3, 600),
            Line::new(p[0].id, 20, 3, 600),
        ],
    )
    .await;
    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(p[2].id, 1, 3, 600), Line::new(p[3].id, 1, 3, 600)],
    )
    .await;
    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(p[1].id, 1, 3, 600)],
    )
    .await;

    let wins = app.board(&query(mode("solo"), "all", "wins", None)).await;
    assert_eq!(codes(&wins), codes_of(&[&p[3], &p[1], &p[2], &p[4], &p[0]]));
    assert_eq!(ranks(&wins), [1, 2, 2, 2, 5].map(|rank| json!(rank)));
    // Kills: p3 6, everyone else 3.
    let kills = app.board(&query(mode("solo"), "all", "kills", None)).await;
    assert_eq!(
        codes(&kills),
        codes_of(&[&p[3], &p[0], &p[1], &p[2], &p[4]])
    );
    assert_eq!(ranks(&kills), [1, 2, 2, 2, 2].map(|rank| json!(rank)));
    // The top 10: p3 2, p0 none (placement 20), everyone else 1.
    let top10 = app.board(&query(mode("solo"), "all", "top10", None)).await;
    assert_eq!(
        codes(&top10),
        codes_of(&[&p[3], &p[1], &p[2], &p[4], &p[0]])
    );
    assert_eq!(ranks(&top10), [1, 2, 2, 2, 5].map(|rank| json!(rank)));

    for (player, rank) in [(&p[4], 2), (&p[0], 5), (&p[3], 1)] {
        let body = app
            .board(&query(mode("solo"), "all", "wins", Some(&player.key)))
            .await;
        assert_eq!(body["user"]["rank"], rank);
        assert_eq!(body["user"]["friend_code"], player.friend_code.to_string());
    }
    app.assert_every_board(&played, caller(&p[4])).await;
}

/// Ratios are ranked by their value rounded to 4 decimals: 1/107 and 1/108 are both 0.0093, so
/// they tie (the older account first) although 1/107 is the greater ratio.
async fn ratio_boards_rank_by_the_rounded_value(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 4).await;
    let [older, newer, nothing, best] = [&players[0], &players[1], &players[2], &players[3]];
    let lines = [
        lines_summing(older.id, 108, 1, 1, 1, 108 * 60),
        lines_summing(newer.id, 107, 1, 1, 1, 107 * 60),
        lines_summing(nothing.id, 10, 0, 0, 0, 600),
        lines_summing(best.id, 10, 1, 1, 1, 600),
    ];
    for lines in into_matches(&lines) {
        app.report_now(&mut played, mode("solo"), lines).await;
    }
    assert_eq!(ratio(1, 107), 0.0093);
    assert_eq!(ratio(1, 108), 0.0093);
    for category in ["winrate", "kills_per_round"] {
        let body = app
            .board(&query(mode("solo"), "all", category, Some(&newer.key)))
            .await;
        assert_eq!(
            codes(&body),
            codes_of(&[best, older, newer, nothing]),
            "{category}"
        );
        assert_eq!(ranks(&body), [1, 2, 2, 4].map(|rank| json!(rank)));
        let values: Vec<Value> = body["players"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|row| row[category].clone())
            .collect();
        assert_eq!(
            values,
            [json!(0.1), json!(0.0093), json!(0.0093), json!(0.0)]
        );
        assert_eq!(body["user"]["rank"], 2);
        assert_eq!(
            body,
            played.answer(mode("solo"), "all", category, app.now(), Some(newer.id))
        );
    }
}

/// A player with 9 rounds is on the wins board but not on the ratio boards, where their own row
/// is left out (`user: null`: a typed client's rank is an integer, never null); their 10th round
/// lists them.
async fn ratio_boards_need_ten_rounds(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 2).await;
    let (nine, ten) = (&players[0], &players[1]);
    let lines = [
        lines_summing(nine.id, 9, 3, 3, 18, 900),
        lines_summing(ten.id, 10, 1, 4, 5, 1000),
    ];
    for lines in into_matches(&lines) {
        app.report_now(&mut played, mode("solo"), lines).await;
    }

    let wins = app
        .board(&query(mode("solo"), "all", "wins", Some(&nine.key)))
        .await;
    assert_eq!(codes(&wins), codes_of(&[nine, ten]));
    assert_eq!(wins["user"]["rank"], 1);
    for category in ["winrate", "kills_per_round"] {
        for window in WINDOWS {
            let body = app
                .board(&query(mode("solo"), window, category, Some(&nine.key)))
                .await;
            assert_eq!(codes(&body), codes_of(&[ten]), "{window} {category}");
            assert_eq!(body["user"], Value::Null, "{window} {category}");
            assert_eq!(
                body,
                played.answer(mode("solo"), window, category, app.now(), Some(nine.id))
            );
        }
    }

    // The tenth round: listed, and first on both ratio boards (0.3 > 0.1, 1.8 > 0.5).
    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(nine.id, 50, 0, 100)],
    )
    .await;
    for category in ["winrate", "kills_per_round"] {
        let body = app
            .board(&query(mode("solo"), "all", category, Some(&nine.key)))
            .await;
        assert_eq!(codes(&body), codes_of(&[nine, ten]), "{category}");
        assert_eq!(body["user"]["rank"], 1);
    }
    let body = app
        .board(&query(mode("solo"), "all", "winrate", Some(&nine.key)))
        .await;
    assert_eq!(body["user"]["winrate"], json!(0.3));
    assert_eq!(body["players"][1]["winrate"], json!(0.1));
    app.assert_every_board(&played, caller(nine)).await;
}

/// `players` holds the top 100 rows only; the caller beyond them still gets their row and rank,
/// and `user` is null without a key or without games in that mode.
async fn the_callers_row_has_its_rank_beyond_the_top_rows(app: TestApp) {
    let mut played = Played::new();
    let others = app.joined_all(&mut played, 105).await;
    let me = app.joined(&mut played).await;
    // Everyone else kills 1 to 99; I kill nobody but win the second match.
    let line = |index: usize, player: &Player| {
        let kills = 1 + i64::try_from(index % 99).expect("small");
        let placement = if index == 0 { 1 } else { 2 };
        Line::new(player.id, placement, kills, 600)
    };
    let first: Vec<Line> = others[..100]
        .iter()
        .enumerate()
        .map(|(index, player)| line(index, player))
        .collect();
    app.report_now(&mut played, mode("solo"), first).await;
    let mut second: Vec<Line> = others[100..]
        .iter()
        .enumerate()
        .map(|(index, player)| line(100 + index, player))
        .collect();
    second.push(Line::new(me.id, 1, 0, 700));
    app.report_now(&mut played, mode("solo"), second).await;

    let kills = app
        .board(&query(mode("solo"), "all", "kills", Some(&me.key)))
        .await;
    let rows = kills["players"].as_array().expect("rows");
    assert_eq!(rows.len(), TOP_ROWS);
    assert_eq!(rows[0]["kills"], 99);
    assert_eq!(rows[0]["friend_code"], others[98].friend_code.to_string());
    assert!(
        !codes(&kills).contains(&me.friend_code.to_string()),
        "the caller is beyond the top rows"
    );
    // The last rows on the board (1 kill: others 0 and 99, then me with 0) are cut off.
    for beyond in [&others[0], &others[99]] {
        assert!(!codes(&kills).contains(&beyond.friend_code.to_string()));
    }
    assert_eq!(
        kills["user"],
        json!({
            "rank": 106,
            "name": me.friend_code.name(),
            "friend_code": me.friend_code.to_string(),
            "rounds": 1,
            "wins": 1,
            "top10": 1,
            "winrate": 1.0,
            "kills": 0,
            "kills_per_round": 0.0,
            "time_alive": 700,
        })
    );
    assert_eq!(
        kills,
        played.answer(mode("solo"), "all", "kills", app.now(), Some(me.id))
    );

    // Wins: others[0] and I tie first (others[0] is older), everyone else is third.
    let wins = app
        .board(&query(mode("solo"), "all", "wins", Some(&me.key)))
        .await;
    assert_eq!(
        codes(&wins)[..3],
        codes_of(&[&others[0], &me, &others[1]])[..]
    );
    assert_eq!(wins["user"]["rank"], 1);
    assert_eq!(wins["players"][99]["rank"], 3);
    assert_eq!(
        wins["players"][99]["friend_code"],
        others[98].friend_code.to_string()
    );
    assert_eq!(
        wins,
        played.answer(mode("solo"), "all", "wins", app.now(), Some(me.id))
    );
    // Others far down the wins board get their own rank too.
    let last = &others[104];
    let body = app
        .board(&query(mode("solo"), "all", "wins", Some(&last.key)))
        .await;
    assert_eq!(body["user"]["rank"], 3);
    assert_eq!(body["user"]["friend_code"], last.friend_code.to_string());
    assert!(!codes(&body).contains(&last.friend_code.to_string()));

    for category in CATEGORIES {
        for window in WINDOWS {
            app.assert_board(&played, mode("solo"), window, category, caller(&me))
                .await;
        }
    }
    // No games in that mode: `user` is null; no key: `user` is null.
    for mode in [mode("duo"), mode("squad"), mode("limited")] {
        let body = app.board(&query(mode, "all", "wins", Some(&me.key))).await;
        assert_eq!(
            body,
            json!({"status": "success", "players": [], "user": null})
        );
    }
    let body = app.board(&query(mode("solo"), "all", "kills", None)).await;
    assert_eq!(body["user"], Value::Null);
    assert_eq!(body["players"], kills["players"]);
}

/// Each mode is a board of its own.
async fn modes_are_separate_boards(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 4).await;
    let [solo_and_squad, duo, limited_and_solo, nothing] =
        [&players[0], &players[1], &players[2], &players[3]];
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(solo_and_squad.id, 1, 5, 1000),
            Line::new(limited_and_solo.id, 2, 9, 900),
        ],
    )
    .await;
    app.report_now(
        &mut played,
        mode("squad"),
        vec![Line::new(solo_and_squad.id, 4, 2, 400)],
    )
    .await;
    app.report_now(
        &mut played,
        mode("squad"),
        vec![Line::new(solo_and_squad.id, 1, 1, 300)],
    )
    .await;
    app.report_now(
        &mut played,
        mode("duo"),
        vec![Line::new(duo.id, 1, 20, 2000)],
    )
    .await;
    app.report_now(
        &mut played,
        mode("limited"),
        vec![Line::new(limited_and_solo.id, 3, 0, 50)],
    )
    .await;

    for (mode, listed) in [
        (mode("solo"), vec![limited_and_solo, solo_and_squad]),
        (mode("duo"), vec![duo]),
        (mode("squad"), vec![solo_and_squad]),
        (mode("limited"), vec![limited_and_solo]),
    ] {
        let body = app.board(&query(mode, "all", "kills", None)).await;
        assert_eq!(codes(&body), codes_of(&listed), "{mode:?}");
    }
    let squad = app
        .board(&query(
            mode("squad"),
            "all",
            "rounds",
            Some(&solo_and_squad.key),
        ))
        .await;
    assert_eq!(squad["user"]["rounds"], 2);
    assert_eq!(squad["user"]["wins"], 1);
    assert_eq!(squad["user"]["kills"], 3);
    assert_eq!(squad["user"]["time_alive"], 700);
    let duo_board = app
        .board(&query(
            mode("duo"),
            "all",
            "rounds",
            Some(&solo_and_squad.key),
        ))
        .await;
    assert_eq!(duo_board["user"], Value::Null);
    for player in [solo_and_squad, duo, limited_and_solo, nothing] {
        app.assert_every_board(&played, caller(player)).await;
    }
}

/// Results leave the 24h, 7d, 1m and 1y windows as the clock moves on, each at its own time;
/// `all` keeps them.
async fn windows_roll_with_the_clock(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 4).await;
    let [a, b, c, d] = [&players[0], &players[1], &players[2], &players[3]];
    let start = app.now();
    // a ended 5 days ago, b twice 2 days ago, c an hour ago, d a minute ago.
    app.report_at(
        &mut played,
        mode("solo"),
        start - Duration::days(5),
        vec![Line::new(a.id, 1, 4, 1000)],
    )
    .await;
    for _ in 0..2 {
        app.report_at(
            &mut played,
            mode("solo"),
            start - Duration::days(2),
            vec![Line::new(b.id, 3, 2, 800)],
        )
        .await;
    }
    app.report_at(
        &mut played,
        mode("solo"),
        start - Duration::hours(1),
        vec![Line::new(c.id, 1, 7, 1500)],
    )
    .await;
    app.report_at(
        &mut played,
        mode("solo"),
        start - Duration::minutes(1),
        vec![Line::new(d.id, 12, 0, 60)],
    )
    .await;

    let everyone = vec![a, b, c, d];
    // (time after start, who is in 24h, 7d, 1m, 1y); `all` always holds everyone.
    let checkpoints: Vec<(Duration, [Vec<&Player>; 4])> = vec![
        (
            Duration::ZERO,
            [
                vec![c, d],
                everyone.clone(),
                everyone.clone(),
                everyone.clone(),
            ],
        ),
        (
            Duration::hours(23) + Duration::minutes(30),
            [
                vec![d],
                everyone.clone(),
                everyone.clone(),
                everyone.clone(),
            ],
        ),
        (
            Duration::days(1),
            [vec![], everyone.clone(), everyone.clone(), everyone.clone()],
        ),
        (
            Duration::days(2) + Duration::hours(12),
            [vec![], vec![b, c, d], everyone.clone(), everyone.clone()],
        ),
        (
            Duration::days(6),
            [vec![], vec![c, d], everyone.clone(), everyone.clone()],
        ),
        (
            Duration::days(7),
            [vec![], vec![], everyone.clone(), everyone.clone()],
        ),
        (
            Duration::days(26),
            [vec![], vec![], vec![b, c, d], everyone.clone()],
        ),
        (
            Duration::days(29) + Duration::hours(12),
            [vec![], vec![], vec![c, d], everyone.clone()],
        ),
        (
            Duration::days(31),
            [vec![], vec![], vec![], everyone.clone()],
        ),
        (Duration::days(361), [vec![], vec![], vec![], vec![b, c, d]]),
        (Duration::days(366), [vec![], vec![], vec![], vec![]]),
    ];
    for (after, windows) in checkpoints {
        app.clock.set(start + after);
        for (window, listed) in WINDOWS.iter().zip(windows.iter().chain([&everyone])) {
            let body = app
                .board(&query(mode("solo"), window, "rounds", None))
                .await;
            let mut expected: Vec<&Player> = listed.clone();
            // The rounds board: b (2 rounds) first, then the others by account id.
            expected.sort_by_key(|player| (player.id != b.id, player.id.0));
            assert_eq!(
                codes(&body),
                codes_of(&expected),
                "{window} at start + {after}"
            );
        }
        for window in WINDOWS {
            for category in CATEGORIES {
                app.assert_board(&played, mode("solo"), window, category, None)
                    .await;
            }
        }
    }
}

/// A result counts in a window until exactly the window's length after its match ended: in one
/// second before, out at that instant.
async fn a_window_ends_exactly_its_length_after_the_match(app: TestApp) {
    let mut played = Played::new();
    let player = app.joined(&mut played).await;
    let report = app
        .report_now(
            &mut played,
            mode("solo"),
            vec![Line::new(player.id, 2, 3, 400)],
        )
        .await;
    let ended = report.ended;
    let listed = codes_of(&[&player]);
    // The clock only moves forward, as a real one does.
    for (index, window) in WINDOWS[..4].iter().enumerate() {
        let length = window_length(window).expect("a bounded window");
        // Keys last 30 days: the player's own row is checked on the shorter windows.
        let with_key = length < Duration::days(30);
        app.clock.set(ended + length - Duration::seconds(1));
        let body = app.board(&query(mode("solo"), window, "kills", None)).await;
        assert_eq!(codes(&body), listed, "{window}, one second before the end");
        assert_eq!(body["players"][0]["kills"], 3);
        if with_key {
            let body = app
                .board(&query(mode("solo"), window, "kills", Some(&player.key)))
                .await;
            assert_eq!(
                body["user"]["rank"], 1,
                "{window}, one second before the end"
            );
            assert_eq!(body["user"]["kills"], 3);
        }
        app.clock.set(ended + length);
        let body = app.board(&query(mode("solo"), window, "kills", None)).await;
        assert_eq!(
            body,
            json!({"status": "success", "players": [], "user": null}),
            "{window}, at its end"
        );
        if with_key {
            let body = app
                .board(&query(mode("solo"), window, "kills", Some(&player.key)))
                .await;
            assert_eq!(
                body,
                json!({"status": "success", "players": [], "user": null}),
                "{window}, at its end, with the player's key"
            );
        }
        for longer in &WINDOWS[index + 1..] {
            let body = app.board(&query(mode("solo"), longer, "kills", None)).await;
            assert_eq!(codes(&body), listed, "{longer} at the end of {window}");
        }
        for category in CATEGORIES {
            app.assert_board(&played, mode("solo"), window, category, None)
                .await;
        }
    }
}

/// Each bad value is 400 `invalid_parameter` naming its parameter in backquotes, on both paths.
async fn bad_parameters_are_400_naming_the_parameter(app: TestApp) {
    let player = app.player().await;
    let cases = [
        ("mode", "mode=bogus"),
        ("mode", "mode=solos"),
        ("mode", "mode=1"),
        ("mode", "mode=bogus&time=all&category=wins"),
        ("time", "time=2h"),
        ("time", "time=24"),
        ("time", "time=1w"),
        ("time", "mode=squad&time=month&category=kills"),
        ("category", "category=deaths"),
        ("category", "category=win"),
        ("category", "category=kd"),
        ("category", "mode=duo&time=7d&category=score"),
    ];
    for path in ["/api/leaderboard/live", "/api/leaderboard"] {
        for (parameter, query) in cases {
            let answer = app.get(&format!("{path}?{query}")).await;
            answer.error_naming(400, "invalid_parameter", &format!("`{parameter}`"));
            let answer = app
                .get(&format!("{path}?{query}&userKey={}", player.key))
                .await;
            answer.error_naming(400, "invalid_parameter", &format!("`{parameter}`"));
        }
    }
}

/// An unknown or malformed key is 401, as on the other endpoints with an optional key.
async fn a_bad_user_key_is_401(app: TestApp) {
    let zeros = "0".repeat(48);
    for path in ["/api/leaderboard/live", "/api/leaderboard"] {
        for key in ["short", zeros.as_str()] {
            app.get(&format!("{path}?userKey={key}"))
                .await
                .error(401, "invalid_user_key");
            app.get(&format!(
                "{path}?mode=squad&time=24h&category=kills&userKey={key}"
            ))
            .await
            .error(401, "invalid_user_key");
        }
    }
}

/// A friend-code rename shows in `name` and `friend_code` on the next request, everywhere.
async fn renames_show_on_the_next_request(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 2).await;
    let (renamed, other) = (&players[0], &players[1]);
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(renamed.id, 1, 5, 1000),
            Line::new(other.id, 2, 6, 900),
        ],
    )
    .await;
    app.report_now(
        &mut played,
        mode("squad"),
        vec![Line::new(renamed.id, 9, 0, 10)],
    )
    .await;
    app.assert_every_board(&played, caller(renamed)).await;

    for name in ["Frosty", "Snowy2"] {
        let code = app.rename_to(&renamed.key, name).await;
        played.rename(renamed.id, &code);
        let body = app
            .board(&query(mode("solo"), "all", "wins", Some(&renamed.key)))
            .await;
        assert_eq!(body["players"][0]["name"], name);
        assert_eq!(body["players"][0]["friend_code"], code.as_str());
        assert_eq!(body["user"]["name"], name);
        assert_eq!(body["user"]["friend_code"], code.as_str());
        assert_eq!(
            body["players"][1]["friend_code"],
            other.friend_code.to_string()
        );
        app.assert_every_board(&played, caller(renamed)).await;
        // The profile follows the new code.
        let profile = app.profile(&code, &other.key).await;
        assert_eq!(profile["user"]["friend_code"], code.as_str());
    }
    // A code with a leading-zero number keeps it on the boards.
    let zero = app.player_with_code("Sneeza#0001").await;
    played.join(&zero);
    app.report_now(
        &mut played,
        mode("solo"),
        vec![Line::new(zero.id, 1, 99, 5000)],
    )
    .await;
    let body = app.board(&query(mode("solo"), "all", "kills", None)).await;
    assert_eq!(body["players"][0]["name"], "Sneeza");
    assert_eq!(body["players"][0]["friend_code"], "Sneeza#0001");
    assert_eq!(encoded("Sneeza#0001"), "Sneeza%230001");
    app.assert_every_board(&played, caller(&zero)).await;
}

/// A deleted account leaves every board on the next request; the players below move up.
async fn deleted_accounts_leave_every_board(app: TestApp) {
    let mut played = Played::new();
    let (deleted, confirmation) = app.deletable_player().await;
    played.join(&deleted);
    let players = app.joined_all(&mut played, 2).await;
    let (second, third) = (&players[0], &players[1]);
    let lines = [
        lines_summing(deleted.id, 10, 6, 8, 50, 6000),
        lines_summing(second.id, 10, 2, 5, 20, 4000),
        lines_summing(third.id, 10, 1, 2, 10, 3000),
    ];
    for lines in into_matches(&lines) {
        app.report_now(&mut played, mode("solo"), lines).await;
    }
    app.report_now(
        &mut played,
        mode("limited"),
        vec![
            Line::new(deleted.id, 1, 3, 300),
            Line::new(third.id, 2, 1, 200),
        ],
    )
    .await;
    let before = app
        .board(&query(mode("solo"), "all", "wins", Some(&third.key)))
        .await;
    assert_eq!(codes(&before), codes_of(&[&deleted, second, third]));
    assert_eq!(before["user"]["rank"], 3);

    app.delete_account(&deleted, &confirmation).await;
    played.hide(deleted.id);
    let after = app
        .board(&query(mode("solo"), "all", "wins", Some(&third.key)))
        .await;
    assert_eq!(codes(&after), codes_of(&[second, third]));
    assert_eq!(after["user"]["rank"], 2);
    let limited = app
        .board(&query(mode("limited"), "24h", "wins", Some(&third.key)))
        .await;
    assert_eq!(codes(&limited), codes_of(&[third]));
    assert_eq!(limited["user"]["rank"], 1);
    app.assert_every_board(&played, caller(third)).await;
    app.profile_answer(&deleted.friend_code.to_string(), &third.key)
        .await
        .error(404, "profile_not_found");
}

/// A banned account is off every board (within the second it takes to show on the node that
/// banned it); unbanned, it is back with its results.
async fn banned_accounts_leave_the_boards_until_unbanned(app: TestApp) {
    let mut played = Played::new();
    let players = app.joined_all(&mut played, 3).await;
    let (first, banned, third) = (&players[0], &players[1], &players[2]);
    app.report_now(
        &mut played,
        mode("solo"),
        vec![
            Line::new(banned.id, 1, 9, 1200),
            Line::new(first.id, 2, 4, 1100),
            Line::new(third.id, 3, 1, 1000),
        ],
    )
    .await;
    app.report_now(
        &mut played,
        mode("duo"),
        vec![Line::new(banned.id, 1, 2, 500)],
    )
    .await;
    let body = app.board(&query(mode("solo"), "all", "kills", None)).await;
    assert_eq!(codes(&body), codes_of(&[banned, first, third]));

    app.set_banned(banned, true).await;
    played.hide(banned.id);
    app.await_board(&played, mode("solo"), "all", "kills", caller(third))
        .await;
    let body = app
        .board(&query(mode("solo"), "all", "kills", Some(&third.key)))
        .await;
    assert_eq!(codes(&body), codes_of(&[first, third]));
    assert_eq!(body["user"]["rank"], 2);
    app.await_every_board(&played, caller(first)).await;

    app.set_banned(banned, false).await;
    played.show(banned.id);
    app.await_board(&played, mode("solo"), "all", "kills", caller(third))
        .await;
    let body = app
        .board(&query(mode("solo"), "all", "kills", Some(&third.key)))
        .await;
    assert_eq!(codes(&body), codes_of(&[banned, first, third]));
    assert_eq!(body["players"][0]["kills"], 9);
    assert_eq!(body["user"]["rank"], 3);
    app.await_every_board(&played, caller(banned)).await;
}
