// The dashboard's session cookie: set by the server, replayed by the SDK for cookie sessions.
export const SESSION_COOKIE = 'testreport_session';
