// Optional enhancements for the admin pages; every page works without this file.
// A [data-copy] button copies the text of the element whose id it names.
document.querySelectorAll("button[data-copy]").forEach(function (btn) {
  var target = document.getElementById(btn.getAttribute("data-copy"));
  if (!target || !navigator.clipboard) return;
  btn.hidden = false;
  btn.addEventListener("click", function () {
    navigator.clipboard.writeText(target.textContent.trim()).then(function () {
      var label = btn.textContent;
      btn.textContent = "Copied";
      setTimeout(function () { btn.textContent = label; }, 1500);
    });
  });
});
// A confirmation's "Keep ..." link reloads its page without script; with it, it just closes the
// confirmation and gives the focus back to the button that opened it.
document.querySelectorAll("[data-close-confirm]").forEach(function (link) {
  var details = link.closest("details");
  if (!details) return;
  link.addEventListener("click", function (event) {
    event.preventDefault();
    details.open = false;
    details.querySelector("summary").focus();
  });
});
// On a phone the navigation is one line that scrolls sideways: show the current page's link.
var current = document.querySelector('.nav a[aria-current="page"]');
if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest", inline: "nearest" });
// A table's "select every row" box ticks or clears every row's box of its form.
document.querySelectorAll("input[data-select-all]").forEach(function (all) {
  var boxes = all.form.querySelectorAll('input[type="checkbox"][name="' + all.getAttribute("data-select-all") + '"]');
  all.hidden = false;
  all.addEventListener("change", function () {
    boxes.forEach(function (box) { box.checked = all.checked; });
  });
  boxes.forEach(function (box) {
    box.addEventListener("change", function () {
      var ticked = all.form.querySelectorAll('input[type="checkbox"][name="' + all.getAttribute("data-select-all") + '"]:checked').length;
      all.checked = ticked === boxes.length;
      all.indeterminate = ticked > 0 && ticked < boxes.length;
    });
  });
});
// "/" puts the focus in the list's search, as on many sites, unless someone is typing in a field.
var search = document.querySelector("input[data-search]");
if (search) {
  document.addEventListener("keydown", function (event) {
    var t = event.target;
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    event.preventDefault();
    search.focus();
    search.select();
  });
}
// A field whose suggestions come from the server (data-suggest, views.Suggest) asks it, as
// staff type, for those that match and puts them in its datalist; without this, the datalist
// holds the suggestions the page was written with. An answer to an older text is dropped.
document.querySelectorAll("input[data-suggest]").forEach(function (input) {
  var list = input.list, timer, asked = null;
  if (!list || !window.fetch) return;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var q = input.value.trim();
      if (q === asked) return;
      asked = q;
      fetch(input.getAttribute("data-suggest") + "?q=" + encodeURIComponent(q), { headers: { Accept: "application/json" } })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (found) {
          if (!Array.isArray(found) || input.value.trim() !== q) return;
          list.replaceChildren.apply(list, found.map(function (value) {
            var option = document.createElement("option");
            option.value = value;
            return option;
          }));
        })
        .catch(function () {});
    }, 150);
  });
});
