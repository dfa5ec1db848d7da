//! Names other players see refuse the characters that draw nothing or turn the text around:
//! a clan's name and description answer 400 naming the parameter and the character.

use safezone_tests::{TestApp, each_combination};

each_combination!(
    clan_names_and_descriptions_refuse_hidden_characters,
    clan_names_of_any_script_and_emoji_are_kept,
);

/// Percent-encoded characters that impersonate: right-to-left override, zero-width space,
/// zero-width joiner, left-to-right isolate, byte-order mark, soft hyphen, line separator,
/// a Hangul filler (drawn blank) and a private-use character.
const HIDDEN: [(&str, &str); 9] = [
    ("%E2%80%AE", "U+202E"),
    ("%E2%80%8B", "U+200B"),
    ("%E2%80%8D", "U+200D"),
    ("%E2%81%A6", "U+2066"),
    ("%EF%BB%BF", "U+FEFF"),
    ("%C2%AD", "U+00AD"),
    ("%E2%80%A8", "U+2028"),
    ("%E3%85%A4", "U+3164"),
    ("%EE%80%80", "U+E000"),
];

async fn clan_names_and_descriptions_refuse_hidden_characters(app: TestApp) {
    let player = app.player().await;
    for (encoded, code_point) in HIDDEN {
        for (query, parameter) in [
            (format!("tag=Abc&name=Squad{encoded}Alpha"), "name"),
            (
                format!("tag=Abc&name=Squad&description=We{encoded}drop"),
                "description",
            ),
        ] {
            let answer = app
                .post(&format!("/api/clan/create?{query}&userKey={}", player.key))
                .await;
            answer.error_naming(400, "invalid_parameter", parameter);
            let message = answer.error(400, "invalid_parameter")["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            assert!(message.contains(code_point), "{code_point}: {message}");
        }
    }
    // Nothing was created: the tag is still free.
    app.post(&format!(
        "/api/clan/create?tag=Abc&name=Squad&userKey={}",
        player.key
    ))
    .await
    .success();
}

async fn clan_names_of_any_script_and_emoji_are_kept(app: TestApp) {
    let player = app.player().await;
    // "Équipe Zoë 🎯" and "東京" in a description.
    let answer = app
        .post(&format!(
            "/api/clan/create?tag=Abc&name=%C3%89quipe%20Zo%C3%AB%20%F0%9F%8E%AF\
             &description=%E6%9D%B1%E4%BA%AC&userKey={}",
            player.key
        ))
        .await;
    let clan = &answer.success()["clan"];
    assert_eq!(clan["name"], "Équipe Zoë 🎯");
    assert_eq!(clan["description"], "東京");
}
