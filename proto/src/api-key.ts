// The API key's format, shared by both planes: the control plane issues keys in it, and a data plane
// refuses any other string at once (401), without asking the control plane (which may be away).
// sk_<project>_<secret>: the project's public id, then 32-128 base62 characters.
export const API_KEY_PATTERN = /^sk_([a-z0-9]{3,32})_([0-9A-Za-z]{32,128})$/;
