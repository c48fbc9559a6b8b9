// The memory inspector's only script: live refresh of the world page, and a confirmation
// before a form that changes something irreversible. It never builds markup from data:
// refreshed parts are the server's own escaped HTML, parsed and swapped as a whole.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) {
        event.preventDefault();
      }
    });
  }

  let area = document.querySelector("[data-refresh]");
  const live = document.getElementById("live");
  if (area === null || live === null) {
    return;
  }
  const every = Number(area.dataset.refresh) || 5000;
  let busy = false;
  const refresh = async () => {
    if (busy || !live.checked || document.hidden) {
      return;
    }
    busy = true;
    try {
      const answer = await fetch(window.location.href, {
        credentials: "same-origin",
        headers: { Accept: "text/html" },
        signal: AbortSignal.timeout(every),
      });
      if (answer.ok) {
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const fresh = page.getElementById(area.id);
        if (fresh !== null) {
          const adopted = document.adoptNode(fresh);
          area.replaceWith(adopted);
          area = adopted;
        }
      }
    } catch (error) {
      // The server is away or slow for a moment (restarting, say): try again next time.
    } finally {
      busy = false;
    }
  };
  setInterval(() => {
    refresh();
  }, every);
});
