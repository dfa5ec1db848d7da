//! Names for new accounts that bring none: an adjective and an animal, e.g. `SwiftFalcon`.
//! 64 x 64 names give 40,960,000 friend codes: at ten million players a quarter are taken, so
//! the random digits a sign-in offers for a name are nearly always free.

use rand::seq::IndexedRandom;

/// The adjectives. The first 32 were the only ones until ten million players would have filled
/// their friend codes (1,024 names x 10,000 digits); `examples/leaderboard_seed.sql` names its
/// players with those.
const ADJECTIVES: [&str; 64] = [
    "Swift", "Silent", "Brave", "Clever", "Fierce", "Lucky", "Mighty", "Nimble", "Quick", "Rapid",
    "Sly", "Bold", "Calm", "Daring", "Eager", "Frosty", "Grim", "Hardy", "Jolly", "Keen", "Lone",
    "Merry", "Noble", "Proud", "Rusty", "Shady", "Stormy", "Tough", "Vivid", "Wild", "Witty",
    "Zesty", "Agile", "Amber", "Ashen", "Blazing", "Breezy", "Bright", "Cosmic", "Crafty", "Dusty",
    "Fabled", "Gentle", "Gilded", "Happy", "Hidden", "Icy", "Jade", "Lively", "Lunar", "Mystic",
    "Plucky", "Polar", "Regal", "Rowdy", "Sandy", "Solar", "Spry", "Stout", "Sunny", "Tidal",
    "Wary", "Wise", "Zippy",
];

/// The animals (the first 32 as for the adjectives).
const ANIMALS: [&str; 64] = [
    "Falcon", "Wolf", "Tiger", "Badger", "Otter", "Raven", "Viper", "Bison", "Cobra", "Coyote",
    "Eagle", "Ferret", "Gecko", "Hawk", "Heron", "Jackal", "Koala", "Lynx", "Mantis", "Moose",
    "Ocelot", "Panda", "Puma", "Rhino", "Shark", "Sloth", "Stoat", "Toucan", "Walrus", "Weasel",
    "Yak", "Zebra", "Alpaca", "Beaver", "Bobcat", "Camel", "Condor", "Crane", "Dingo", "Dolphin",
    "Donkey", "Fox", "Gazelle", "Gopher", "Hare", "Hornet", "Ibex", "Iguana", "Impala", "Kestrel",
    "Lemur", "Lion", "Llama", "Marmot", "Mink", "Newt", "Orca", "Osprey", "Owl", "Parrot",
    "Pelican", "Quail", "Stork", "Turtle",
];

/// A random name of 6 to 14 ASCII letters, valid as a friend-code name.
pub fn generate() -> String {
    let mut rng = rand::rng();
    let adjective = ADJECTIVES.choose(&mut rng).copied().unwrap_or("Swift");
    let animal = ANIMALS.choose(&mut rng).copied().unwrap_or("Falcon");
    format!("{adjective}{animal}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::FriendCode;

    #[test]
    fn every_name_is_a_distinct_friend_code_name() {
        let mut names = std::collections::HashSet::new();
        for adjective in ADJECTIVES {
            for animal in ANIMALS {
                let name = format!("{adjective}{animal}");
                assert!(FriendCode::new(&name, 1).is_ok() && (6..=14).contains(&name.len()));
                names.insert(name);
            }
        }
        assert_eq!(names.len(), ADJECTIVES.len() * ANIMALS.len());
        assert!(FriendCode::new(&generate(), 1).is_ok());
    }
}
