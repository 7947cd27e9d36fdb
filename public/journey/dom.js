// The journey's DOM helpers: the ones it shares with the console.
export * from "../common/dom.js";
