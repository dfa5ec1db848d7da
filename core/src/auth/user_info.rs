//! A provider's user as Safezone needs it, read from a JSON user object by configured fields.

use serde_json::Value;

use super::config::UserFields;

/// Who signed in at a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderUser {
    /// The user's id at the provider.
    pub id: String,
    /// The display name, if given.
    pub name: Option<String>,
    /// The e-mail address, if given.
    pub email: Option<String>,
    /// The avatar address, if given.
    pub avatar: Option<String>,
}

/// The user in `body` by `fields`; `None` when the id field is missing or empty. Ids may be
/// strings or numbers; other fields are kept only when they are non-empty strings.
pub fn read_user(body: &Value, fields: &UserFields) -> Option<ProviderUser> {
    let id = match body.get(&fields.id)? {
        Value::String(id) if !id.is_empty() => id.clone(),
        Value::Number(id) => id.to_string(),
        _ => return None,
    };
    let text = |field: &Option<String>| {
        field
            .as_ref()
            .and_then(|name| body.get(name))
            .and_then(Value::as_str)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    Some(ProviderUser {
        id,
        name: text(&fields.name),
        email: text(&fields.email),
        avatar: text(&fields.avatar),
    })
}

/// Whether a field marks a premium subscription: present and not null, false, 0 or "".
pub fn is_truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(Value::Number(number)) => number.as_f64().is_some_and(|n| n != 0.0),
        Some(Value::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields() -> UserFields {
        UserFields {
            id: "id".to_owned(),
            name: Some("username".to_owned()),
            email: Some("email".to_owned()),
            avatar: None,
        }
    }

    #[test]
    fn reads_string_and_number_ids() {
        let user = read_user(
            &json!({"id": 42, "username": "Ace", "email": ""}),
            &fields(),
        )
        .unwrap();
        assert_eq!(user.id, "42");
        assert_eq!(user.name.as_deref(), Some("Ace"));
        assert_eq!(user.email, None);
        assert!(read_user(&json!({"id": ""}), &fields()).is_none());
        assert!(read_user(&json!({"username": "x"}), &fields()).is_none());
    }

    #[test]
    fn premium_is_truthiness() {
        assert!(is_truthy(Some(&json!(2))));
        assert!(is_truthy(Some(&json!(true))));
        assert!(!is_truthy(Some(&json!(0))));
        assert!(!is_truthy(Some(&json!(null))));
        assert!(!is_truthy(None));
    }
}
