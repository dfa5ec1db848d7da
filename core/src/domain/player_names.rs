//! Names for new accounts that bring none: an adjective and an animal, e.g. `SwiftFalcon`.

use rand::seq::IndexedRandom;

const ADJECTIVES: [&str; 32] = [
    "Swift", "Silent", "Brave", "Clever", "Fierce", "Lucky", "Mighty", "Nimble", "Quick", "Rapid",
    "Sly", "Bold", "Calm", "Daring", "Eager", "Frosty", "Grim", "Hardy", "Jolly", "Keen", "Lone",
    "Merry", "Noble", "Proud", "Rusty", "Shady", "Stormy", "Tough", "Vivid", "Wild", "Witty",
    "Zesty",
];

const ANIMALS: [&str; 32] = [
    "Falcon", "Wolf", "Tiger", "Badger", "Otter", "Raven", "Viper", "Bison", "Cobra", "Coyote",
    "Eagle", "Ferret", "Gecko", "Hawk", "Heron", "Jackal", "Koala", "Lynx", "Mantis", "Moose",
    "Ocelot", "Panda", "Puma", "Rhino", "Shark", "Sloth", "Stoat", "Toucan", "Walrus", "Weasel",
    "Yak", "Zebra",
];

/// A random name of 6 to 13 ASCII letters, valid as a friend-code name.
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
    fn every_name_is_a_friend_code_name() {
        for adjective in ADJECTIVES {
            for animal in ANIMALS {
                assert!(FriendCode::new(&format!("{adjective}{animal}"), 1).is_ok());
            }
        }
        assert!(FriendCode::new(&generate(), 1).is_ok());
    }
}
