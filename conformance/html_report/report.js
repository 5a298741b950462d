// Filters the clause table by status and by clause family. No network, no libraries: the page is one file.
(function () {
  "use strict";
  var status = document.getElementById("status-filter");
  var family = document.getElementById("family-filter");
  if (!status || !family) { return; }
  function apply() {
    var shown = 0;
    document.querySelectorAll("tr.clause").forEach(function (row) {
      var visible = (status.value === "all" || row.dataset.status === status.value) &&
        (family.value === "all" || row.dataset.family === family.value);
      row.classList.toggle("hidden", !visible);
      if (visible) { shown += 1; }
    });
    document.getElementById("shown-count").textContent = String(shown);
  }
  status.addEventListener("change", apply);
  family.addEventListener("change", apply);
  apply();
})();
