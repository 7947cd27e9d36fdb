// Where a premises photo was taken, when its step asks (`location: "ask"`): the browser's own
// permission prompt, once per photo at capture. Refusing, a timeout or no Geolocation API give
// null, and the photo goes without it: the location never blocks a step.
const TIMEOUT_MS = 10000;
const MAXIMUM_ACCURACY_M = 100000; // the server's bound (CaptureLocation.maximumAccuracyMetres)

/** {latitude, longitude, accuracy_m} or null, never rejects. */
export function askLocation() {
  if (!navigator.geolocation) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), TIMEOUT_MS + 1000);
    navigator.geolocation.getCurrentPosition((position) => {
      clearTimeout(timer);
      const { latitude, longitude, accuracy } = position.coords;
      const usable = [latitude, longitude, accuracy].every(Number.isFinite) && accuracy <= MAXIMUM_ACCURACY_M;
      resolve(usable ? { latitude, longitude, accuracy_m: Math.round(accuracy) } : null);
    }, () => {
      clearTimeout(timer);
      resolve(null);
    }, { enableHighAccuracy: true, timeout: TIMEOUT_MS, maximumAge: 60000 });
  });
}

/** The upload's query for a location ("" without one). */
export function locationQuery(where) {
  if (!where) return "";
  const query = new URLSearchParams({
    latitude: where.latitude.toFixed(6), longitude: where.longitude.toFixed(6), accuracy_m: String(where.accuracy_m),
  });
  return `?${query}`;
}
