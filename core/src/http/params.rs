//! Parameters declared once: [`parameters!`] declares an endpoint's path and query parameters
//! as one struct, each field with its wire name and where it is sent, and makes from that one
//! declaration both the reading of a request (`read`: the first bad parameter is a 400 naming
//! it) and the parameters of the endpoint's operation in the document (`utoipa::IntoParams`).
//! A parameter's type says how its text is read and what its schema is ([`ParamValue`]);
//! `Option<T>` is an optional parameter, where empty counts as absent.

use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, Object, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::{RefOr, Required};

use super::{ApiError, Incoming};

/// A value a parameter holds: how it is read from the parameter's text, and how the document
/// describes it (from the same limits).
pub trait ParamValue: Sized {
    /// Reads the value; the error completes "`name` ..." (`must be a positive whole number`).
    fn from_param(text: &str) -> Result<Self, String>;

    /// The parameter's schema in the document.
    fn param_schema() -> RefOr<Schema>;
}

/// A declared parameter's field: a [`ParamValue`] (required: absent is a 400 naming it) or
/// `Option` of one (optional).
pub trait Param: Sized {
    /// Whether the request must send the parameter.
    const REQUIRED: bool;

    /// Reads the parameter `name` from its text, `None` when absent (or empty).
    fn read(text: Option<&str>, name: &'static str) -> Result<Self, ApiError>;

    /// The parameter's schema in the document.
    fn schema() -> RefOr<Schema>;
}

impl<T: ParamValue> Param for T {
    const REQUIRED: bool = true;

    fn read(text: Option<&str>, name: &'static str) -> Result<Self, ApiError> {
        let text = text.ok_or(ApiError::MissingParameter { name })?;
        T::from_param(text).map_err(|reason| ApiError::invalid(name, reason))
    }

    fn schema() -> RefOr<Schema> {
        T::param_schema()
    }
}

impl<T: ParamValue> Param for Option<T> {
    const REQUIRED: bool = false;

    fn read(text: Option<&str>, name: &'static str) -> Result<Self, ApiError> {
        text.map(|text| T::from_param(text).map_err(|reason| ApiError::invalid(name, reason)))
            .transpose()
    }

    fn schema() -> RefOr<Schema> {
        T::param_schema()
    }
}

/// Where a parameter is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A segment of the route's path (`/api/clan/{clanId}/join`).
    Path,
    /// The query string, or a POST's form body.
    Query,
}

/// Reads the parameter `name` of type `P` from where it is sent.
pub fn read<P: Param>(
    incoming: &Incoming,
    location: Location,
    name: &'static str,
) -> Result<P, ApiError> {
    let text = match location {
        Location::Path => incoming.path(name).ok(),
        Location::Query => incoming.query.optional(name),
    };
    P::read(text, name)
}

/// The document's parameter `name` of type `P`, described by the lines of its field's doc
/// comment.
pub fn parameter<P: Param>(location: Location, name: &str, doc: &[&str]) -> Parameter {
    let description = doc
        .iter()
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join(" ");
    ParameterBuilder::new()
        .name(name)
        .parameter_in(match location {
            Location::Path => ParameterIn::Path,
            Location::Query => ParameterIn::Query,
        })
        .description(Some(description))
        .required(if P::REQUIRED {
            Required::True
        } else {
            Required::False
        })
        .schema(Some(P::schema()))
        .build()
}

/// A string schema (`{"type":"string", ...}`), for a value's [`ParamValue::param_schema`].
pub fn text_schema() -> ObjectBuilder {
    Object::builder().schema_type(Type::String)
}

/// Any text (`{"type":"string"}`).
impl ParamValue for String {
    fn from_param(text: &str) -> Result<Self, String> {
        Ok(text.to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        text_schema().into()
    }
}

/// A boolean as clients write it: `true` or `false` in any letter case (C# sends `True`), or
/// `1` or `0`.
impl ParamValue for bool {
    fn from_param(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("true") || text == "1" {
            Ok(true)
        } else if text.eq_ignore_ascii_case("false") || text == "0" {
            Ok(false)
        } else {
            Err("must be `true` or `false` (any letter case), `1` or `0`".to_owned())
        }
    }

    fn param_schema() -> RefOr<Schema> {
        Object::builder().schema_type(Type::Boolean).into()
    }
}

/// A whole number schema from `minimum` (and to `maximum`, when there is one).
fn whole_number_schema(minimum: i64, maximum: Option<i64>) -> RefOr<Schema> {
    Object::builder()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
        .minimum(Some(minimum))
        .maximum(maximum)
        .into()
}

/// A positive whole number, such as the id in a path (`/api/clan/{clanId}/join`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PositiveId(pub i64);

impl ParamValue for PositiveId {
    fn from_param(text: &str) -> Result<Self, String> {
        text.parse::<i64>()
            .ok()
            .filter(|id| *id > 0)
            .map(Self)
            .ok_or_else(|| "must be a positive whole number".to_owned())
    }

    fn param_schema() -> RefOr<Schema> {
        whole_number_schema(1, None)
    }
}

/// A whole number from `MIN` to `MAX` (a count, an id in the query).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WholeNumber<const MIN: i64, const MAX: i64>(pub i64);

impl<const MIN: i64, const MAX: i64> ParamValue for WholeNumber<MIN, MAX> {
    fn from_param(text: &str) -> Result<Self, String> {
        text.parse::<i64>()
            .ok()
            .filter(|number| (MIN..=MAX).contains(number))
            .map(Self)
            .ok_or_else(|| format!("must be a whole number from {MIN} to {MAX}"))
    }

    fn param_schema() -> RefOr<Schema> {
        whole_number_schema(MIN, (MAX < i64::MAX).then_some(MAX))
    }
}

/// A parameter's value as an in-process client sends it: its text, `None` for an optional
/// one left out.
pub trait Sent {
    /// The parameter's text.
    fn sent(&self) -> Option<String>;
}

impl Sent for String {
    fn sent(&self) -> Option<String> {
        Some(self.clone())
    }
}

impl Sent for PositiveId {
    fn sent(&self) -> Option<String> {
        Some(self.0.to_string())
    }
}

impl<const MIN: i64, const MAX: i64> Sent for WholeNumber<MIN, MAX> {
    fn sent(&self) -> Option<String> {
        Some(self.0.to_string())
    }
}

impl<T: Sent> Sent for Option<T> {
    fn sent(&self) -> Option<String> {
        self.as_ref().and_then(Sent::sent)
    }
}

/// The path and query parameters of an endpoint that both serves requests and is called
/// in-process by a typed client: read from a request, and written into one.
pub trait RequestParams: utoipa::IntoParams + Sized {
    /// Reads them from a request (the first one absent or bad is a 400 naming it).
    fn from_request(incoming: &Incoming) -> Result<Self, ApiError>;

    /// Each given parameter's place, name and text, for a request.
    fn to_request(&self) -> Vec<(Location, &'static str, String)>;
}

/// The parameters of an endpoint that takes none.
pub struct NoParams;

impl utoipa::IntoParams for NoParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        Vec::new()
    }
}

impl RequestParams for NoParams {
    fn from_request(_: &Incoming) -> Result<Self, ApiError> {
        Ok(Self)
    }

    fn to_request(&self) -> Vec<(Location, &'static str, String)> {
        Vec::new()
    }
}

/// Declares the path and query parameters of an endpoint once:
///
/// ```ignore
/// parameters! {
///     /// The parameters of `POST /api/poll/vote/{pollId}`.
///     pub(super) struct VoteParams {
///         /// The poll
///         poll: PositiveId = Path "pollId",
///         /// The option voted for
///         option: PositiveId = Query "optionId",
///     }
/// }
/// ```
///
/// makes the struct, `VoteParams::read(&incoming)` and its `utoipa::IntoParams`, which the
/// handler's `#[utoipa::path(params(VoteParams))]` names.
macro_rules! parameters {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $field_doc:literal])+
                $field:ident: $ty:ty = $location:ident $wire:literal
            ),+ $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        $vis struct $name {
            $(
                $(#[doc = $field_doc])+
                pub(crate) $field: $ty,
            )+
        }

        impl $name {
            /// Reads the parameters of a request, in their declared order: the first one
            /// absent (when required) or bad is a 400 naming it.
            pub(crate) fn read(
                incoming: &$crate::http::Incoming,
            ) -> Result<Self, $crate::http::ApiError> {
                Ok(Self {
                    $(
                        $field: $crate::http::params::read::<$ty>(
                            incoming,
                            $crate::http::params::Location::$location,
                            $wire,
                        )?,
                    )+
                })
            }
        }

        impl utoipa::IntoParams for $name {
            fn into_params(
                _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
            ) -> Vec<utoipa::openapi::path::Parameter> {
                vec![
                    $(
                        $crate::http::params::parameter::<$ty>(
                            $crate::http::params::Location::$location,
                            $wire,
                            &[$($field_doc),+],
                        ),
                    )+
                ]
            }
        }
    };
}

pub(crate) use parameters;

/// [`parameters!`] for an endpoint a typed client calls in-process: the same struct, with
/// [`RequestParams`], so that the client writes its request from the declaration that reads
/// it (each field's type is [`Sent`]).
macro_rules! request_parameters {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $field_doc:literal])+
                $field:ident: $ty:ty = $location:ident $wire:literal
            ),+ $(,)?
        }
    ) => {
        $crate::http::params::parameters! {
            $(#[doc = $doc])*
            $vis struct $name {
                $(
                    $(#[doc = $field_doc])+
                    $field: $ty = $location $wire
                ),+
            }
        }

        impl $crate::http::params::RequestParams for $name {
            fn from_request(
                incoming: &$crate::http::Incoming,
            ) -> Result<Self, $crate::http::ApiError> {
                Self::read(incoming)
            }

            fn to_request(
                &self,
            ) -> Vec<($crate::http::params::Location, &'static str, String)> {
                let mut sent = Vec::new();
                $(
                    if let Some(text) = $crate::http::params::Sent::sent(&self.$field) {
                        sent.push(($crate::http::params::Location::$location, $wire, text));
                    }
                )+
                sent
            }
        }
    };
}

pub(crate) use request_parameters;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Query;

    fn query(raw: &str) -> Query {
        Query::parse(Some(raw))
    }

    /// The optional boolean parameter `flag`.
    fn flag(query: &Query) -> Result<Option<bool>, ApiError> {
        <Option<bool> as Param>::read(query.optional("flag"), "flag")
    }

    #[test]
    fn booleans_are_read_as_clients_write_them() {
        for (text, expected) in [
            ("true", true),
            ("True", true),
            ("TRUE", true),
            ("1", true),
            ("false", false),
            ("False", false),
            ("0", false),
        ] {
            let query = query(&format!("flag={text}"));
            assert_eq!(flag(&query).unwrap(), Some(expected), "{text}");
        }
        assert_eq!(flag(&query("flag=")).unwrap(), None);
        for text in ["yes", "2", "t", "truee"] {
            assert!(flag(&query(&format!("flag={text}"))).is_err(), "{text}");
        }
    }
}
