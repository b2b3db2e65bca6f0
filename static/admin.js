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
