// Step through the tricks of a deal on its replay page. Step k shows tricks 1..k, marks trick k,
// and in the hands dims the cards played before it and marks the cards of trick k; step 0 is the
// deal before the first card. The page opens on the overview (every trick, the hands as dealt),
// so it reads the same with or without this script.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
    const section = document.getElementById("tricks");
    if (!section) {
        return;
    }
    const rows = Array.from(section.querySelectorAll("tr.trick"));
    const handCards = Array.from(document.querySelectorAll("#hands .card[data-trick]"));
    const label = section.querySelector(".step-label");
    const stepper = section.querySelector(".stepper");
    const last = rows.length;
    let step = null; // null: the overview

    function show(next) {
        step = next === null ? null : Math.max(0, Math.min(last, next));
        for (const row of rows) {
            const number = Number(row.dataset.trick);
            row.classList.toggle("later", step !== null && number > step);
            row.classList.toggle("current", number === step);
        }
        for (const card of handCards) {
            const trick = Number(card.dataset.trick);
            card.classList.toggle("played", step !== null && trick < step);
            card.classList.toggle("in-trick", trick === step);
        }
        if (step === null) {
            label.textContent = `All ${last} tricks`;
        } else if (step === 0) {
            label.textContent = `Before the first trick (of ${last})`;
        } else {
            label.textContent = `Trick ${step} of ${last}`;
        }
    }

    const moves = {
        first: () => 0,
        previous: () => (step === null ? last : step - 1),
        next: () => (step === null ? 1 : step + 1),
        overview: () => null,
    };
    for (const button of stepper.querySelectorAll("button[data-step]")) {
        button.addEventListener("click", () => show(moves[button.dataset.step]()));
    }
    document.addEventListener("keydown", (event) => {
        if (event.target.closest("input, textarea, select")) {
            return;
        }
        if (event.key === "ArrowRight") {
            show(moves.next());
        } else if (event.key === "ArrowLeft") {
            show(moves.previous());
        }
    });
    stepper.hidden = false;
    show(null);
});
