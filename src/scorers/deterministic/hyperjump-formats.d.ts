// @hyperjump/json-schema/formats ships no declarations; it is imported only for its registrations.
declare module "@hyperjump/json-schema/formats" {}
