// make serve's routing cookie, signed (njs, nginx's JavaScript module; deploy/serve.py).
//
// nginx hashes every request on a route key to choose the Streamlit process that holds the
// browser's session. The key travels in the cookie `dpviz_route=<key>.<HMAC-SHA256 of key>`,
// signed with a secret that deploy/serve.py draws afresh for each run and hands to nginx in
// the environment (DPVIZ_ROUTE_SECRET; it is in no file). A cookie whose signature does not
// match is ignored: that request gets a fresh random key, as a browser's first request does,
// and a new signed cookie. So a client cannot choose its process by writing a cookie value;
// it can only keep the one it was given.

const crypto = require('crypto');

const COOKIE = /^([0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;

function sign(key) {
    return crypto.createHmac('sha256', process.env.DPVIZ_ROUTE_SECRET).update(key)
        .digest('base64url');
}

// The same time whatever the first differing character: the comparison gives no clue to
// the signature's next character.
function same(a, b) {
    let diff = a.length ^ b.length;
    for (let i = 0; i < a.length && i < b.length; i++) {
        diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
    }
    return diff === 0;
}

// The key of a cookie nginx signed, or '' for none, a malformed or a forged one.
function verified(r) {
    const parts = COOKIE.exec(r.variables.cookie_dpviz_route || '');
    return parts && same(sign(parts[1]), parts[2]) ? parts[1] : '';
}

// $route: what the upstream hashes on.
function route(r) {
    return verified(r) || r.variables.new_route;
}

// $route_cookie: the Set-Cookie value for a request without a valid cookie, else ''.
function route_cookie(r) {
    if (verified(r)) {
        return '';
    }
    const key = r.variables.new_route;
    return `dpviz_route=${key}.${sign(key)}; Path=/; Secure; HttpOnly; SameSite=Lax`;
}

export default {route, route_cookie};
